//! The last steps of word expansion, as bash does them: an unquoted expansion's result is split
//! into fields at blanks and newlines (the default `IFS`), quoted text and quoted expansions are
//! not, and a word that expands to nothing unquoted is no field at all (bash's manual, "Word
//! Splitting"). Pathname expansion (`*`) is not simulated: such a word stays as written.

use super::words::{Part, Script, Word};

/// A piece of an expanded word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text, or the result of a quoted expansion: never split.
    Quoted(String),
    /// The result of an unquoted expansion (`$X`, `$(…)`): split at blanks and newlines.
    Unquoted(String),
}

/// The fields a word's pieces make.
pub fn fields(pieces: &[Piece]) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut started = false;
    for piece in pieces {
        match piece {
            Piece::Quoted(text) => {
                field.push_str(text);
                started = true;
            }
            Piece::Unquoted(text) => {
                for c in text.chars() {
                    if matches!(c, ' ' | '\t' | '\n') {
                        if started {
                            fields.push(std::mem::take(&mut field));
                            started = false;
                        }
                    } else {
                        field.push(c);
                        started = true;
                    }
                }
            }
        }
    }
    if started {
        fields.push(field);
    }
    fields
}

/// Each word's fields, its parts expanded in order (variables with `var`); `values` holds the
/// pieces expanded before, so that a command substitution runs once: one not yet run is returned
/// (its script, whether it is quoted), and the caller comes back with its output pushed.
pub fn words(
    words: &[&Word],
    values: &mut Vec<Piece>,
    var: &dyn Fn(&str) -> String,
) -> Result<Vec<Vec<String>>, (Script, bool)> {
    let mut k = 0;
    let mut out = Vec::new();
    for word in words {
        let mut pieces = Vec::new();
        for part in word.iter() {
            if k == values.len() {
                values.push(match part {
                    Part::Text(t) => Piece::Quoted(t.clone()),
                    Part::Var { name, quoted: true } => Piece::Quoted(var(name)),
                    Part::Var { name, quoted: false } => Piece::Unquoted(var(name)),
                    Part::Command { script, quoted } => return Err((script.clone(), *quoted)),
                });
            }
            pieces.push(values[k].clone());
            k += 1;
        }
        out.push(fields(&pieces));
    }
    Ok(out)
}

/// What a command substitution stands for: its output with the trailing newlines removed.
pub fn substituted(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    text.trim_end_matches('\n').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Piece {
        Piece::Quoted(s.into())
    }

    fn u(s: &str) -> Piece {
        Piece::Unquoted(s.into())
    }

    #[test]
    fn unquoted_results_split_at_blanks_and_quoted_ones_do_not() {
        assert_eq!(fields(&[u("1\n2\n3")]), ["1", "2", "3"]);
        assert_eq!(fields(&[u("  a  b ")]), ["a", "b"]);
        assert_eq!(fields(&[q("a  b")]), ["a  b"]);
        assert_eq!(fields(&[q("x"), u("1 2"), q("y")]), ["x1", "2y"]);
        assert_eq!(fields(&[q("x"), u(" 1")]), ["x", "1"]);
    }

    #[test]
    fn an_empty_unquoted_result_is_no_field_and_an_empty_quoted_one_is() {
        assert_eq!(fields(&[u("")]), Vec::<String>::new());
        assert_eq!(fields(&[u("   ")]), Vec::<String>::new());
        assert_eq!(fields(&[q("")]), [""]);
        assert_eq!(fields(&[q(""), u("")]), [""]);
    }

    #[test]
    fn a_substitution_loses_its_trailing_newlines_only() {
        assert_eq!(substituted(b"\n1\n2\n\n\n"), "\n1\n2");
        assert_eq!(substituted(b"a b "), "a b ");
    }
}
