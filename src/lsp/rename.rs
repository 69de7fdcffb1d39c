//! Renaming a name everywhere it stands for one declaration, refused
//! where the new text would read differently: where it does not parse
//! (a keyword), where a name would come to stand for another declaration
//! (captured by a binder, or capturing another name's uses), or where a
//! program that checked would no longer check (the language's own
//! names).

use super::scopes::Names;
use super::text::is_word;
use crate::span::Span;

/// The places to write `new_name` at, to rename the name at `at` of
/// `text` (`names` its resolution, `checked` whether it checks); else
/// why not, in a sentence for the editor to show.
pub fn places(
    text: &str,
    names: &Names,
    at: usize,
    new_name: &str,
    checked: bool,
) -> Result<Vec<Span>, String> {
    let Some(symbol) = names.at(at) else {
        return Err("only a name the program declares or binds can be renamed".into());
    };
    let starts_well = new_name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !starts_well || !new_name.chars().all(is_word) {
        return Err(format!(
            "`{new_name}` is not a name: a letter or `_`, then letters, digits or `_`"
        ));
    }
    let declared_elsewhere = names.symbols.iter().any(|s| {
        s.bound_by.is_none() && !s.label && s.name == new_name && s.decl.start != symbol.decl.start
    });
    if symbol.bound_by.is_none() && !symbol.label && declared_elsewhere {
        return Err(format!("`{new_name}` is taken: the program declares it"));
    }
    // A definition reads its free names where it is used: a binder there
    // of the same name would capture them (see [`Names`]).
    let captured = match symbol.bound_by {
        None => {
            names.free_in_definitions.contains(&symbol.name) && names.bound_names.contains(new_name)
        }
        Some(_) => names.free_in_definitions.contains(new_name),
    };
    if captured && !symbol.label {
        return Err(format!(
            "`{new_name}` is taken: a definition reads `{}` where it is used, and a binder there called `{new_name}` would capture it",
            match symbol.bound_by {
                None => symbol.name.as_str(),
                Some(_) => new_name,
            }
        ));
    }
    let places = symbol.places();
    let renamed = rewrite(text, &places, new_name);
    let ast = crate::syntax::parse_program(&renamed)
        .map_err(|_| format!("`{new_name}` is a keyword of the language"))?;
    // The same syntax tree, so the same names in the same order: each
    // must stand where it stood, moved by what the renaming added.
    let after = Names::of(&ast);
    let moved = |s: Span| {
        let before = places.iter().filter(|p| p.start < s.start).count() as isize;
        let by = before * (new_name.len() as isize - symbol.name.len() as isize);
        let shift = |k: usize| (k as isize + by) as usize;
        let end = if places.iter().any(|p| p.start == s.start) {
            shift(s.start) + new_name.len()
        } else {
            shift(s.end)
        };
        Span::new(shift(s.start), end)
    };
    let same = names.symbols.len() == after.symbols.len()
        && names.symbols.iter().zip(&after.symbols).all(|(a, b)| {
            // Spans compare equal whatever their places: compare places.
            let place = |s: Span| (s.start, s.end);
            let uses = a.uses.iter().map(|&s| place(moved(s)));
            place(moved(a.decl)) == place(b.decl) && uses.eq(b.uses.iter().map(|&s| place(s)))
        });
    if !same {
        return Err(format!(
            "`{new_name}` is taken: renamed, a name would stand for another declaration"
        ));
    }
    if checked {
        if let Err(problems) = crate::check::check(&ast) {
            let why = problems
                .iter()
                .find(|p| !p.warning)
                .map_or(String::new(), |p| format!(": {}", p.message));
            return Err(format!(
                "renamed `{new_name}`, the program would not check{why}"
            ));
        }
    }
    Ok(places)
}

/// `text` with each of `places` (in order, apart) replaced by `by`.
fn rewrite(text: &str, places: &[Span], by: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for p in places {
        out += &text[from..p.start];
        out += by;
        from = p.end;
    }
    out + &text[from..]
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "param K = 3\nvar x: 0..K = 0\nvar y: 0..K = 0\n\
        process {\n    a :: forall(q in nbrs : q.x <= x) -> x := (x + 1) mod K\n}\n";

    fn renamed(at_needle: &str, new_name: &str) -> Result<String, String> {
        let ast = crate::syntax::parse_program(TEXT).unwrap();
        let names = Names::of(&ast);
        let at = TEXT.find(at_needle).unwrap();
        let places = places(TEXT, &names, at, new_name, true)?;
        Ok(rewrite(TEXT, &places, new_name))
    }

    #[test]
    fn a_variable_is_renamed_where_it_is_read_and_written() {
        let text = renamed("x:", "level").unwrap();
        assert!(text.contains("var level: 0..K"));
        assert!(text.contains("forall(q in nbrs : q.level <= level) -> level := (level + 1)"));
    }

    #[test]
    fn renamings_that_would_change_the_program_are_refused() {
        // Into a keyword, into another variable, into the bound `q`
        // (which would capture the variable's read inside it), into a
        // name the language has (`n`).
        for (name, why) in [
            ("and", "keyword"),
            ("y", "taken"),
            ("q", "taken"),
            ("2x", "not a name"),
            ("n", "built-in"),
        ] {
            let e = renamed("x:", name).unwrap_err();
            assert!(e.contains(why), "{name}: {e}");
        }
        // The bound `q` into `x` would hide the variable from the guard.
        assert!(renamed("q in", "x").unwrap_err().contains("taken"));
        assert!(renamed("q in", "r")
            .unwrap()
            .contains("forall(r in nbrs : r.x <= x)"));
        // A definition's free name is read where the definition is used.
        let text = "var x: 0..3 = 0\ndef low = x == 0\nprocess {\n    a :: exists(q in nbrs : low) -> x := 1\n}\n";
        let names = Names::of(&crate::syntax::parse_program(text).unwrap());
        let var = text.find("x:").unwrap();
        let e = places(text, &names, var, "q", true).unwrap_err();
        assert!(e.contains("capture"), "{e}");
        assert!(places(text, &names, var, "level", true).is_ok());
        let bound = text.find("q in").unwrap();
        assert!(places(text, &names, bound, "x", true)
            .unwrap_err()
            .contains("capture"));
        // Nothing to rename on a keyword or on the language's own names.
        assert!(renamed("nbrs", "all").is_err());
    }

    /// Every name of every bundled program, declared or bound, renamed to
    /// a fresh one: accepted, and the program still checks. A use the
    /// scoping missed would be left behind under the old name, and the
    /// renamed program would not check (or would read another name).
    #[test]
    fn every_name_of_every_program_can_be_renamed() {
        for dir in ["programs", "tests/golden/programs"] {
            for (path, text) in super::super::gc_files(dir) {
                let ast = crate::syntax::parse_program(&text).unwrap();
                assert!(crate::check::check(&ast).is_ok(), "{}", path.display());
                let names = Names::of(&ast);
                for s in names.symbols.iter().filter(|s| !s.label) {
                    let renamed = places(&text, &names, s.decl.start, "fresh_name", true);
                    let places = renamed
                        .unwrap_or_else(|why| panic!("{}: `{}`: {why}", path.display(), s.name));
                    assert!(places.iter().all(|p| text[p.start..p.end] == s.name));
                }
            }
        }
    }
}
