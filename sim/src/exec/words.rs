//! The simulated shell's grammar: a script is split into simple commands joined by `;`, newlines,
//! `&&` and `||`; a command is words; a word is literal text (single quotes, double quotes and
//! backslashes as sh reads them) and `$NAME`, `${NAME}` and `$?`, expanded when the command runs.
//! Pipes, redirections, `&`, subshells and `$(…)` are not simulated: they are a [`ParseError`]
//! that says so, never a silent wrong answer.

/// How a command is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// The first command, or after `;` or a newline: always runs.
    Always,
    /// After `&&`: runs when the last status was 0.
    And,
    /// After `||`: runs when the last status was not 0.
    Or,
}

/// A part of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// `$NAME`, `${NAME}`; `?` for `$?`.
    Var(String),
}

pub type Word = Vec<Part>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub join: Join,
    pub words: Vec<Word>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

/// Parses a script into its commands (empty commands dropped).
pub fn parse(script: &str) -> Result<Vec<Command>, ParseError> {
    let mut p = Parser { chars: script.chars().collect(), at: 0 };
    let mut commands = Vec::new();
    let mut join = Join::Always;
    let mut words: Vec<Word> = Vec::new();
    loop {
        p.skip_blanks();
        let Some(c) = p.peek() else { break };
        match c {
            ';' | '\n' => {
                p.at += 1;
                push(&mut commands, &mut words, join)?;
                join = Join::Always;
            }
            '&' | '|' if p.peek_at(1) == Some(c) => {
                p.at += 2;
                if words.is_empty() {
                    return Err(ParseError(format!("syntax error near unexpected token `{c}{c}'")));
                }
                push(&mut commands, &mut words, join)?;
                join = if c == '&' { Join::And } else { Join::Or };
            }
            '#' if words.is_empty() => p.skip_comment(),
            '|' | '&' | '<' | '>' | '(' | ')' | '`' => {
                return Err(ParseError(format!(
                    "`{c}' is not simulated (kube-sim's shell runs simple commands joined by ; && ||)"
                )))
            }
            _ => words.push(p.word()?),
        }
    }
    if join != Join::Always && words.is_empty() {
        return Err(ParseError("syntax error: unexpected end of file".into()));
    }
    push(&mut commands, &mut words, join)?;
    Ok(commands)
}

fn push(commands: &mut Vec<Command>, words: &mut Vec<Word>, join: Join) -> Result<(), ParseError> {
    if !words.is_empty() {
        commands.push(Command { join, words: std::mem::take(words) });
    }
    Ok(())
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.at += 1;
        }
    }

    fn skip_comment(&mut self) {
        while !matches!(self.peek(), None | Some('\n')) {
            self.at += 1;
        }
    }

    /// One word, up to a blank or an operator.
    fn word(&mut self) -> Result<Word, ParseError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '`' => break,
                '\\' => {
                    self.at += 1;
                    match self.peek() {
                        Some('\n') => {}
                        Some(next) => text.push(next),
                        None => text.push('\\'),
                    }
                    self.at += 1;
                }
                '\'' => {
                    self.at += 1;
                    loop {
                        match self.peek() {
                            None => return Err(ParseError("unterminated quoted string".into())),
                            Some('\'') => break,
                            Some(ch) => text.push(ch),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                }
                '"' => {
                    self.at += 1;
                    self.double_quoted(&mut parts, &mut text)?;
                }
                '$' => self.dollar(&mut parts, &mut text)?,
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        if !text.is_empty() || parts.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(parts)
    }

    /// The inside of `"…"` (the opening quote read): `$` expands, `\` escapes `$ " \ \``.
    fn double_quoted(&mut self, parts: &mut Vec<Part>, text: &mut String) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                None => return Err(ParseError("unterminated quoted string".into())),
                Some('"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some('\\') if matches!(self.peek_at(1), Some('$' | '"' | '\\' | '`')) => {
                    text.push(self.peek_at(1).unwrap_or('\\'));
                    self.at += 2;
                }
                Some('$') => self.dollar(parts, text)?,
                Some(ch) => {
                    text.push(ch);
                    self.at += 1;
                }
            }
        }
    }

    /// `$NAME`, `${NAME}`, `$?` (at the `$`); a `$` before anything else is literal.
    fn dollar(&mut self, parts: &mut Vec<Part>, text: &mut String) -> Result<(), ParseError> {
        self.at += 1;
        let name = match self.peek() {
            Some('?') => {
                self.at += 1;
                "?".to_string()
            }
            Some('{') => {
                self.at += 1;
                let mut name = String::new();
                loop {
                    match self.peek() {
                        None => return Err(ParseError("bad substitution: no closing `}'".into())),
                        Some('}') => break,
                        Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' || ch == '?' => name.push(ch),
                        Some(_) => return Err(ParseError("bad substitution: only ${NAME} is simulated".into())),
                    }
                    self.at += 1;
                }
                self.at += 1;
                name
            }
            Some('(') => return Err(ParseError("`$(' is not simulated".into())),
            Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {
                let mut name = String::new();
                while let Some(ch) = self.peek().filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_') {
                    name.push(ch);
                    self.at += 1;
                }
                name
            }
            _ => {
                text.push('$');
                return Ok(());
            }
        };
        if !text.is_empty() {
            parts.push(Part::Text(std::mem::take(text)));
        }
        parts.push(Part::Var(name));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(script: &str) -> Vec<(Join, Vec<String>)> {
        parse(script)
            .expect("parses")
            .into_iter()
            .map(|c| {
                let words = c
                    .words
                    .iter()
                    .map(|w| {
                        w.iter()
                            .map(|p| match p {
                                Part::Text(t) => t.clone(),
                                Part::Var(v) => format!("<{v}>"),
                            })
                            .collect()
                    })
                    .collect();
                (c.join, words)
            })
            .collect()
    }

    #[test]
    fn commands_split_on_separators_and_keep_their_joins() {
        assert_eq!(
            texts("echo a; false && echo b || echo c\nexit 3"),
            vec![
                (Join::Always, vec!["echo".into(), "a".into()]),
                (Join::Always, vec!["false".into()]),
                (Join::And, vec!["echo".into(), "b".into()]),
                (Join::Or, vec!["echo".into(), "c".into()]),
                (Join::Always, vec!["exit".into(), "3".into()]),
            ]
        );
        assert_eq!(texts("  ;; # a comment\n"), vec![]);
    }

    #[test]
    fn quotes_and_variables_read_as_sh_reads_them() {
        assert_eq!(
            texts(r#"echo 'a $HOME' "b $HOME${X}c" d\ e $? "\$x""#),
            vec![(
                Join::Always,
                vec!["echo".into(), "a $HOME".into(), "b <HOME><X>c".into(), "d e".into(), "<?>".into(), "$x".into()]
            )]
        );
        assert_eq!(texts("echo ''"), vec![(Join::Always, vec!["echo".into(), "".into()])]);
        assert_eq!(texts("echo 5$"), vec![(Join::Always, vec!["echo".into(), "5$".into()])]);
    }

    #[test]
    fn what_is_not_simulated_is_an_error_that_says_so() {
        assert!(parse("ls | wc -l").unwrap_err().0.contains("not simulated"));
        assert!(parse("echo hi > /tmp/x").unwrap_err().0.contains("not simulated"));
        assert!(parse("echo $(date)").unwrap_err().0.contains("not simulated"));
        assert!(parse("echo 'open").unwrap_err().0.contains("unterminated"));
        assert!(parse("&& echo").unwrap_err().0.contains("syntax error"));
        assert!(parse("echo a &&").unwrap_err().0.contains("end of file"));
    }
}
