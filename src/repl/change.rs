//! The commands that change the configuration or the set-up: `set`,
//! `corrupt` (fault injection), `load`, `save`, `daemon`, `seed`.

use super::*;

impl Session {
    /// Applies a configuration text; `whole` (a loaded file) also empties the
    /// channels it does not fill, as saved files list only non-empty ones.
    pub(super) fn apply_assignments(
        &mut self,
        name: &str,
        text: &str,
        whole: bool,
    ) -> Result<(), String> {
        let sim = &self.sim;
        let list = init::parse_assignments(&sim.prog, &sim.code, &sim.topo, text)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        let channels = init::parse_channels(&sim.prog, &sim.code, &sim.topo, text)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        let mut cells = init::PartialState::full(sim.state.clone());
        init::apply(&sim.prog, &sim.code, &sim.topo, &mut cells, &list)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        self.remember();
        if whole {
            self.sim.chans.queues.iter_mut().for_each(|q| q.clear());
        }
        init::apply_channels(&mut self.sim.chans, &self.sim.topo, &channels);
        let new = cells.into_values().expect("every slot was set");
        let result = self.sim.change_state(|s| s.copy_from_slice(&new));
        if let Err(e) = result {
            let error = self.runtime_error(&e);
            self.undo(1)?;
            return Err(error);
        }
        Ok(())
    }

    pub(super) fn set(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: set P.VAR = VALUE, or set P->Q = MSGS for a channel".into());
        }
        self.apply_assignments("set", arg, false)?;
        let _ = writeln!(
            out,
            "ok; {} enabled, legitimate: {}",
            self.sim.enabled_count(),
            self.legit_word()
        );
        Ok(())
    }

    pub(super) fn legit_word(&self) -> &'static str {
        match self.sim.legitimate() {
            None => "no predicate",
            Some(true) => "yes",
            Some(false) => "no",
        }
    }

    pub(super) fn corrupt(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let k = Self::count(arg, 1)? as usize;
        let n = self.sim.n();
        if k == 0 || k > n {
            return Err(format!("corrupt takes a count from 1 to {n}"));
        }
        self.remember();
        let mut procs: Vec<usize> = (0..n).collect();
        procs.shuffle(&mut self.sim.rng);
        procs.truncate(k);
        procs.sort_unstable();
        if let Err(e) = self.sim.corrupt(&procs) {
            let error = self.runtime_error(&e);
            self.undo(1)?;
            return Err(error);
        }
        for p in procs {
            let _ = writeln!(out, "corrupted {p}: {}", self.row(p));
        }
        let _ = writeln!(
            out,
            "{} enabled, legitimate: {}",
            self.sim.enabled_count(),
            self.legit_word()
        );
        Ok(())
    }

    pub(super) fn daemon(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if !arg.is_empty() {
            let daemon = Daemon::parse(arg, &crate::load::read_file)?;
            daemon
                .check_schedule(&self.sim.code, self.sim.n())
                .map_err(|e| {
                    let file = arg.strip_prefix("schedule:").unwrap_or(arg);
                    format!("{file}:{}: {}", e.line, e.message)
                })?;
            daemon.check_time(self.sim.runs_in_ticks())?;
            self.undo.switch_daemon(&daemon);
            self.sim.daemon = daemon;
        }
        let _ = writeln!(out, "daemon: {}", self.sim.daemon.name());
        Ok(())
    }

    pub(super) fn seed(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let s: u64 = arg
            .parse()
            .map_err(|_| format!("`{arg}` is not a seed (a whole number)"))?;
        self.remember();
        self.sim.rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
        let _ = writeln!(out, "seed: {s}");
        Ok(())
    }

    pub(super) fn save(&self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: save FILE".into());
        }
        let text = init::format_config(
            &self.sim.prog,
            &self.sim.code,
            &self.sim.topo,
            &self.sim.state,
            &self.sim.chans,
        );
        std::fs::write(arg, text).map_err(|e| format!("cannot write `{arg}`: {e}"))?;
        let _ = writeln!(out, "saved to {arg}");
        Ok(())
    }

    pub(super) fn load(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: load FILE".into());
        }
        let text = crate::load::read_file(arg)?;
        self.apply_assignments(arg, &text, true)?;
        let _ = writeln!(out, "loaded {arg}");
        self.show("", out)
    }
}
