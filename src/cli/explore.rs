//! `guarded explore`: the instance, start and daemon options as `repl`
//! takes them, then the explorer's server (`crate::explore`).

use super::*;
use crate::explore::{Launch, Options};

#[derive(Args, Debug)]
pub(super) struct ExploreArgs {
    #[command(flatten)]
    instance: InstanceArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Open a run as a path: DIR/NAME names DIR/NAME.init and DIR/NAME.sched (a `verify
    /// --witness` run, or a path the page saved).
    #[arg(long, value_name = "DIR/NAME")]
    witness: Option<String>,
    /// The port to serve on [default: a free one].
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    port: u16,
    /// The address to serve on; anything but the loopback lets other machines in.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    open: bool,
}

/// The files a topology spec names (`file:PATH`, `dot:PATH`), read.
fn named_files(topology: Option<&str>) -> Result<Vec<(String, String)>, i32> {
    let Some(path) = topology.and_then(crate::topology::named_file) else {
        return Ok(Vec::new());
    };
    let text = crate::load::read_file(path).map_err(|e| usage_error(format!("--topology: {e}")))?;
    Ok(vec![(path.to_string(), text)])
}

pub(super) fn explore(a: &ExploreArgs) -> i32 {
    crate::memory::set_limit(a.instance.memory.memory_limit);
    let source = match crate::load::read_program(&a.instance.program) {
        Ok(s) => s,
        Err(e) => return report_load_error(&e, &a.instance.program, ""),
    };
    super::warnings::warn_about_precedence_in(&a.instance.program, &source);
    let daemon = match a
        .start
        .daemon
        .as_deref()
        .map(crate::explore::parse_daemon)
        .transpose()
    {
        Ok(d) => d,
        Err(m) => return usage_error(format!("--daemon: {m}")),
    };
    let init = match a.start.init.init.as_deref() {
        None => None,
        Some(arg) => match crate::load::init_mode(
            Some(arg),
            crate::runtime::init::InitMode::Declared,
            &crate::load::read_file,
        ) {
            Ok(m) => Some(m),
            Err(m) => return usage_error(m),
        },
    };
    let witness = match &a.witness {
        None => None,
        Some(base) => {
            let read = |ext: &str| crate::load::read_file(&format!("{base}.{ext}"));
            match (read("init"), read("sched")) {
                (Ok(i), Ok(s)) => Some((base.clone(), i, s)),
                (Err(e), _) | (_, Err(e)) => return usage_error(format!("--witness: {e}")),
            }
        }
    };
    let files = match named_files(a.instance.topology.as_deref()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let launch = Launch {
        program: a.instance.program.clone(),
        setup: setup_of(&a.instance),
        init,
        sets: a.start.init.sets.clone(),
        daemon,
        choice: a.start.init.choice.into(),
        seed: a.instance.seed,
        memory_limit: a.instance.memory.memory_limit,
        files,
    };
    let options = Options {
        launch,
        source,
        host: a.host.clone(),
        port: a.port,
        open: a.open,
        witness,
    };
    match crate::explore::serve(options) {
        Ok(()) => EXIT_OK,
        Err(message) => {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            EXIT_INPUT
        }
    }
}
