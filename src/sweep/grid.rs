//! The axes of a sweep as the command line writes them, expanded into
//! lists: topology specs with ranges of sizes, parameter values as formulas
//! of `n`, seeds and daemons.
//!
//! A range is inclusive, as ranges are in the language: `8..12` is 8, 9,
//! 10, 11, 12; `8..128*2` multiplies (8, 16, ..., 128); `10..40+10` adds
//! (10, 20, 30, 40).

pub use crate::formula::Formula;
use crate::runtime::daemon::{Daemon, DAEMONS};

/// The most values one range or one list may expand to: a mistyped bound
/// must not make the sweep try to hold billions of points.
pub const MAX_VALUES: usize = 1_000_000;

/// The values of one range written `A..B`, `A..B+S` or `A..B*F`, or `None`
/// when `text` is not a range. Wide enough for every `i64` and `u64`.
fn range(text: &str) -> Option<Result<Vec<i128>, String>> {
    let (lo, rest) = text.split_once("..")?;
    let lo: i128 = lo.trim().parse().ok()?;
    let (hi, step) = match rest.find(['+', '*']) {
        Some(at) => (&rest[..at], Some((&rest[at..at + 1], &rest[at + 1..]))),
        None => (rest, None),
    };
    let hi: i128 = hi.trim().parse().ok()?;
    let step = match step {
        None => ("+", 1),
        Some((op, s)) => (if op == "+" { "+" } else { "*" }, s.trim().parse().ok()?),
    };
    Some(expand(text, lo, hi, step))
}

fn expand(text: &str, lo: i128, hi: i128, (op, by): (&str, i128)) -> Result<Vec<i128>, String> {
    if lo > hi {
        return Err(format!("`{text}`: the range is empty ({lo} > {hi})"));
    }
    let grows = match op {
        "+" => by >= 1,
        _ => by >= 2 && lo >= 1,
    };
    if !grows {
        return Err(format!(
            "`{text}`: the range never reaches {hi} (a step `+S` needs S >= 1, a factor `*F` needs F >= 2 and a start >= 1)"
        ));
    }
    let mut values = vec![lo];
    let mut v = lo;
    loop {
        let next = if op == "+" {
            v.checked_add(by)
        } else {
            v.checked_mul(by)
        };
        match next {
            Some(x) if x <= hi => v = x,
            _ => break,
        }
        if values.len() == MAX_VALUES {
            return Err(format!(
                "`{text}` has more than {MAX_VALUES} values; a sweep that large is a mistake"
            ));
        }
        values.push(v);
    }
    Ok(values)
}

/// Numbers written as a comma-separated list of numbers and ranges
/// (`0..49`, `1,5,9`, `0..9,100`), each of type `T`, which `what` names.
fn numbers<T: TryFrom<i128>>(text: &str, what: &str) -> Result<Vec<T>, String> {
    let mut values = Vec::new();
    for item in text.split(',').map(str::trim) {
        let wide = match range(item) {
            Some(r) => r?,
            None => vec![item
                .parse::<i128>()
                .map_err(|_| format!("`{item}` is neither an integer nor a range `A..B`"))?],
        };
        for v in wide {
            values.push(T::try_from(v).map_err(|_| format!("{what} {v} is out of range"))?);
        }
        if values.len() > MAX_VALUES {
            return Err(format!("`{text}` has more than {MAX_VALUES} values"));
        }
    }
    Ok(values)
}

/// Integers written as a comma-separated list of numbers and ranges
/// (`0..49`, `1,5,9`, `0..9,100`).
pub fn integers(text: &str) -> Result<Vec<i64>, String> {
    numbers(text, "the value")
}

/// The seeds `--seeds` lists: every `u64`, as `run --seed` takes.
pub fn seeds(text: &str) -> Result<Vec<u64>, String> {
    numbers(text, "seed (0 to 18446744073709551615)")
}

/// Whether the body of a `family:` spec names a file (and so holds no ranges).
fn names_a_file(family: &str) -> bool {
    matches!(family, "file" | "dot")
}

/// The bodies one spec body stands for: every range in it expanded, several
/// ranges in one body zipped (`grid:2..6x2..6` is 2x2, 3x3, ..., 6x6).
fn bodies(body: &str) -> Result<Vec<String>, String> {
    // The spans of the ranges in `body`, and their values.
    let mut ranges: Vec<(usize, usize, Vec<i128>)> = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let end = range_end(bytes, i);
        match end.and_then(|e| range(&body[i..e]).map(|r| (e, r))) {
            Some((e, _)) if bytes.get(e) == Some(&b'/') => {
                return Err(format!(
                    "`{body}`: a range steps as `A..B+S` (adding S) or `A..B*F` (multiplying by F), not `/`"
                ));
            }
            Some((e, values)) => {
                if let Some(meant) = sizes_between(body, i, e) {
                    return Err(format!(
                        "`{body}`: a range stands for one number, not for sizes from one ROWSxCOLS to another; write `{meant}`"
                    ));
                }
                ranges.push((i, e, values?));
                i = e;
            }
            None => i += 1,
        }
    }
    let Some(count) = ranges.first().map(|r| r.2.len()) else {
        return Ok(vec![body.to_string()]);
    };
    if ranges.iter().any(|r| r.2.len() != count) {
        return Err(format!(
            "`{body}`: the ranges in one spec are read together and must have as many values each"
        ));
    }
    Ok((0..count)
        .map(|k| {
            let mut out = String::new();
            let mut at = 0;
            for (start, end, values) in &ranges {
                out.push_str(&body[at..*start]);
                out.push_str(&values[k].to_string());
                at = *end;
            }
            out.push_str(&body[at..]);
            out
        })
        .collect())
}

/// Where the range `start..end` of `body` is written between two sizes
/// of a grid (`2x2..4x4`: the range `2..4`, read as a column count, would
/// make `2x2x4`), the ranges meant (`2..4x2..4`); else `None`.
fn sizes_between(body: &str, start: usize, end: usize) -> Option<String> {
    let rows_from = body[..start].strip_suffix('x')?;
    let cols_to = body[end..].strip_prefix('x')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (cols_from, rows_to) = body[start..end].split_once("..")?;
    (all_digits(rows_from) && all_digits(cols_to) && all_digits(rows_to))
        .then(|| format!("{rows_from}..{rows_to}x{cols_from}..{cols_to}"))
}

/// Where a range starting at `i` (`A..B`, then `+S` or `*F`) ends, if one does.
fn range_end(b: &[u8], i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        (j > start).then_some(j)
    };
    let j = digits(i)?;
    if b.get(j) != Some(&b'.') || b.get(j + 1) != Some(&b'.') {
        return None;
    }
    let k = digits(j + 2)?;
    match b.get(k) {
        Some(b'+' | b'*') => digits(k + 1).or(Some(k)),
        _ => Some(k),
    }
}

/// The topology specs the `--topology` values stand for, in order.
///
/// A value is a comma-separated list; an item `family:body` starts a spec,
/// and a bare item is another body for the family before it
/// (`ring:8,16,32`, `grid:4x4,8x8`). Ranges in a body expand
/// (`ring:8..128*2`), except in the paths of `file:` and `dot:`.
pub fn topologies(values: &[String]) -> Result<Vec<String>, String> {
    let mut specs = Vec::new();
    for value in values {
        let mut family: Option<String> = None;
        for item in value.split(',').map(str::trim) {
            let prefixed = item.split_once(':').filter(|(f, _)| {
                !f.is_empty() && f.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
            });
            // A family that takes no size (`petersen`) is a spec of its own.
            let sizeless = crate::topology::FAMILIES
                .iter()
                .any(|f| f.0 == item && !f.1.contains(':'));
            if sizeless && prefixed.is_none() {
                specs.push(item.to_string());
                family = None;
                continue;
            }
            let (fam, body) = match (prefixed, &family) {
                (Some((f, b)), _) => (f.to_string(), b),
                (None, Some(f)) => (f.clone(), item),
                (None, None) if crate::topology::FAMILIES.iter().any(|f| f.0 == item) => {
                    return Err(format!("`{item}` needs a size, e.g. `{item}:8`"))
                }
                (None, None) => {
                    return Err(format!(
                    "`{item}` names no topology family; write e.g. `ring:8,16` or `ring:8..64*2`"
                ))
                }
            };
            if names_a_file(&fam) {
                specs.push(format!("{fam}:{body}"));
            } else {
                specs.extend(bodies(body)?.into_iter().map(|b| format!("{fam}:{b}")));
            }
            family = Some(fam);
            if specs.len() > MAX_VALUES {
                return Err(format!("more than {MAX_VALUES} topologies"));
            }
        }
    }
    Ok(specs)
}

/// The daemons the `--daemon` values list (comma-separated; `all` is the
/// four daemons that need no schedule, or `ticks` alone), each with its
/// name for the CSV; none listed: `central` (`ticks` for a program that
/// runs in `ticks`). A daemon that does not fit how the program keeps
/// time is refused.
pub fn daemons(
    values: &[String],
    ticks: bool,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Vec<(String, Daemon)>, String> {
    let mut out: Vec<(String, Daemon)> = Vec::new();
    let default = [String::from(if ticks { "ticks" } else { "central" })];
    let values = if values.is_empty() {
        &default[..]
    } else {
        values
    };
    for item in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if item == "all" {
            let all = DAEMONS.iter().filter(|d| match d.name {
                "schedule" => false,
                "ticks" => ticks,
                _ => !ticks,
            });
            for d in all {
                out.push((d.name.to_string(), Daemon::parse(d.name, read)?));
            }
            continue;
        }
        let daemon = Daemon::parse(item, read)?;
        daemon.check_time(ticks)?;
        let name = match daemon {
            Daemon::Schedule(_) => item.to_string(),
            _ => daemon.name().to_string(),
        };
        out.push((name, daemon));
    }
    Ok(out)
}

/// One `--param NAME=F1,F2,...`: a parameter and the formulas of its values.
#[derive(Clone, Debug)]
pub struct ParamAxis {
    /// The parameter.
    pub name: String,
    /// Each value as written, and as a formula.
    pub values: Vec<(String, Formula)>,
}

impl ParamAxis {
    /// Parses `NAME=F1,F2,...`.
    pub fn parse(text: &str) -> Result<ParamAxis, String> {
        let (name, values) = text
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=VALUES, found `{text}`"))?;
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`{name}` is not a parameter name"));
        }
        let mut parsed = Vec::new();
        for item in values.split(',').map(str::trim) {
            match range(item) {
                Some(r) => {
                    for v in r? {
                        let v = i64::try_from(v).map_err(|_| format!("{v} is out of range"))?;
                        parsed.push((v.to_string(), Formula::Const(v)));
                    }
                }
                None => parsed.push((item.to_string(), Formula::parse(item)?)),
            }
            if parsed.len() > MAX_VALUES {
                return Err(format!("`{name}` has more than {MAX_VALUES} values"));
            }
        }
        Ok(ParamAxis {
            name: name.to_string(),
            values: parsed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ranges_expand_inclusively() {
        assert_eq!(integers("0..4").unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(integers("8..128*2").unwrap(), vec![8, 16, 32, 64, 128]);
        assert_eq!(integers("8..100*2").unwrap(), vec![8, 16, 32, 64]);
        assert_eq!(integers("10..40+10,7").unwrap(), vec![10, 20, 30, 40, 7]);
        assert!(integers("5..4").unwrap_err().contains("empty"));
        assert!(integers("0..8*2").unwrap_err().contains("never reaches"));
        assert!(integers("0..9223372036854775807").is_err());
        assert!(seeds("-1..3").is_err());
        assert_eq!(
            seeds("18446744073709551614..18446744073709551615").unwrap(),
            vec![u64::MAX - 1, u64::MAX]
        );
        assert!(seeds("18446744073709551616").is_err());
        assert!(integers("9223372036854775808").is_err());
    }

    #[test]
    fn topology_lists_and_ranges() {
        assert_eq!(
            topologies(&strings(&["ring:8,16", "chain:3..5"])).unwrap(),
            strings(&["ring:8", "ring:16", "chain:3", "chain:4", "chain:5"])
        );
        assert_eq!(
            topologies(&strings(&["grid:2..4x2..4,8x8"])).unwrap(),
            strings(&["grid:2x2", "grid:3x3", "grid:4x4", "grid:8x8"])
        );
        assert_eq!(
            topologies(&strings(&["random:10..30+10:0.5"])).unwrap(),
            strings(&["random:10:0.5", "random:20:0.5", "random:30:0.5"])
        );
        assert_eq!(
            topologies(&strings(&["file:g1..3.txt,b.txt"])).unwrap(),
            strings(&["file:g1..3.txt", "file:b.txt"])
        );
        assert!(topologies(&strings(&["grid:2..4x2..5"])).is_err());
        // Sizes from one grid to another are written a range per side.
        assert!(topologies(&strings(&["grid:2x2..4x4"]))
            .unwrap_err()
            .contains("write `2..4x2..4`"));
        assert_eq!(
            topologies(&strings(&["torus:3x2..4"])).unwrap(),
            strings(&["torus:3x2", "torus:3x3", "torus:3x4"])
        );
        assert!(topologies(&strings(&["ring:10..40/10"]))
            .unwrap_err()
            .contains("`A..B+S`"));
        assert!(topologies(&strings(&["8,16"])).is_err());
        assert!(topologies(&strings(&["ring"]))
            .unwrap_err()
            .contains("ring:8"));
    }

    #[test]
    fn formulas_of_n() {
        let at = |t: &str, n| Formula::parse(t).unwrap().eval(n);
        assert_eq!(at("n", 8), Ok(8));
        assert_eq!(at("2*n-1", 8), Ok(15));
        assert_eq!(at("n - 2 - 1", 8), Ok(5));
        assert_eq!(at("2^n", 8), Ok(256));
        assert_eq!(at("-2^2", 8), Ok(-4));
        assert_eq!(at("-n*2", 3), Ok(-6));
        assert!(at("2^-1+n", 3).is_err());
        assert_eq!(at("(-2)^2", 8), Ok(4));
        assert_eq!(at("2^3^2", 0), Ok(512));
        assert_eq!(at("(n+1)/2", 8), Ok(4));
        assert_eq!(at("-7 / 2", 0), Ok(-4));
        assert_eq!(at("n mod 3", 8), Ok(2));
        assert!(at("n/0", 8).is_err());
        assert!(at("2^n", 100).is_err());
        assert!(Formula::parse("n +").is_err());
        assert!(Formula::parse("(n").is_err());
        assert!(Formula::parse("k").is_err());
        assert!(Formula::parse("n;").is_err());
    }

    #[test]
    fn parameter_axes_parse() {
        let k = ParamAxis::parse("K=n,n+1").unwrap();
        let texts: Vec<&str> = k.values.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!((k.name.as_str(), texts), ("K", vec!["n", "n+1"]));
        assert!(ParamAxis::parse("K").is_err());
        assert!(ParamAxis::parse("K=").is_err());
    }
}
