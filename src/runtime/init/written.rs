//! A configuration written out: in the assignment-file format that
//! `file.rs` reads, and its messages as text.

use super::*;

/// A message as written in configurations and traces: `find(3)`, `pong`.
pub(crate) fn msg_text(prog: &ir::Program, m: &crate::state::channels::Msg) -> String {
    let t = &prog.messages[m.kind as usize];
    let fields: Vec<String> = t
        .fields
        .iter()
        .zip(m.fields)
        .map(|((_, ty, _), v)| prog.show_value(*ty, v))
        .collect();
    let text = if fields.is_empty() {
        t.name.clone()
    } else {
        format!("{}({})", t.name, fields.join(","))
    };
    // In ticks, a message on its way: how many more ticks it takes.
    match m.due {
        0 => text,
        due => format!("{text}+{due}"),
    }
}

/// Writes a configuration in the assignment-file format.
pub(crate) fn format_config(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &[i64],
    chans: &Channels,
) -> String {
    let stride = code.stride;
    let mut out = String::new();
    for p in 0..topo.n() {
        let row = &state[p * stride..(p + 1) * stride];
        for (k, v) in prog.vars.iter().enumerate() {
            if code.per_nbr[k] {
                for (j, q) in topo.nbrs(p).iter().enumerate() {
                    let x = row[code.offsets[k] + j];
                    out.push_str(&format!(
                        "{p}.{}[{q}] = {}\n",
                        v.name,
                        prog.show_value(v.ty, x)
                    ));
                }
            } else {
                out.push_str(&format!(
                    "{p}.{} = {}\n",
                    v.name,
                    code.show_var(prog, &[], k, row)
                ));
            }
        }
    }
    for (p, q, ms) in in_transit(prog, topo, chans) {
        out.push_str(&format!("{p}->{q} = {}\n", ms.join(" ")));
    }
    out
}

/// The messages in transit, channel by channel (sender, receiver, the
/// messages oldest first), the empty channels left out.
pub(crate) fn in_transit(
    prog: &ir::Program,
    topo: &Topology,
    chans: &Channels,
) -> Vec<(usize, u32, Vec<String>)> {
    let mut out = Vec::new();
    for p in 0..topo.n() {
        for &q in topo.nbrs(p) {
            let Some(c) = chans.between(topo, p, q as usize) else {
                continue;
            };
            if !c.is_empty() {
                out.push((p, q, c.iter().map(|m| msg_text(prog, m)).collect()));
            }
        }
    }
    out
}
