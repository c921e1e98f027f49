//! The simulated shell's grammar, as bash reads it (its manual's "Shell Grammar"): a script is a
//! list of pipelines joined by `;`, newlines, `&&` and `||`; a pipeline is commands joined by `|`;
//! a command is a simple command (words and redirections `N>FILE`, `N>>FILE`, `N<FILE`, `N>&M`,
//! `&>FILE`) or a `for NAME [in WORDS]; do LIST; done` loop. A word is literal text (single
//! quotes, double quotes and backslashes as sh reads them), `$NAME`, `${NAME}`, `$?` and `$(…)`,
//! expanded when the command runs. What is not simulated (`&`, subshells `(…)`, backquotes,
//! `$((…))`, other compound commands) is a [`ParseError`] that says so, never a wrong answer.

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// The first pipeline, or after `;` or a newline: always runs.
    Always,
    /// After `&&`: runs when the last status was 0.
    And,
    /// After `||`: runs when the last status was not 0.
    Or,
}

impl Join {
    /// Whether a pipeline so joined runs after the status `last`.
    pub fn runs(self, last: i32) -> bool {
        match self {
            Join::Always => true,
            Join::And => last == 0,
            Join::Or => last != 0,
        }
    }
}

/// A part of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// `$NAME`, `${NAME}`; `?` for `$?`. Inside double quotes it is not split into fields.
    Var {
        name: String,
        quoted: bool,
    },
    /// `$(LIST)`: what LIST writes on stdout, its trailing newlines removed.
    Command {
        script: Script,
        quoted: bool,
    },
}

pub type Word = Vec<Part>;

/// A redirection, applied in order before its command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// `N>&M`, `N<&M`: N becomes a copy of M.
    Dup { fd: u32, to: u32 },
    /// `N>FILE`, `N>>FILE`.
    Write { fd: u32, file: Word, append: bool },
    /// `N<FILE`.
    Read { fd: u32, file: Word },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Simple {
        words: Vec<Word>,
        redirects: Vec<Redirect>,
    },
    /// `for VAR in ITEMS; do BODY; done` (ITEMS `None`: no `in`, the positional parameters).
    For {
        var: String,
        items: Option<Vec<Word>>,
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `while LIST; do BODY; done`, and with `until` set `until LIST; do BODY; done`: BODY runs
    /// as long as LIST's status is zero (`until`: not zero).
    While {
        condition: Script,
        body: Script,
        until: bool,
        redirects: Vec<Redirect>,
    },
}

impl Command {
    pub fn redirects(&self) -> &[Redirect] {
        match self {
            Command::Simple { redirects, .. } | Command::For { redirects, .. } | Command::While { redirects, .. } => {
                redirects
            }
        }
    }
}

/// Commands joined by `|`: each one's stdout is the next one's stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline(pub Vec<Command>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub join: Join,
    pub pipeline: Pipeline,
}

pub type Script = Vec<Item>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

/// Parses a script (empty commands dropped).
pub fn parse(script: &str) -> Result<Script, ParseError> {
    let mut p = Parser { chars: script.chars().collect(), at: 0 };
    let list = p.list(Until::End)?;
    match p.peek() {
        None => Ok(list),
        Some(c) => Err(unexpected(&c.to_string())),
    }
}

/// A simple command of plain words (no expansions, no redirections): what `kubectl exec POD --
/// ARGV…` runs.
pub fn simple(argv: &[String]) -> Item {
    let words = argv.iter().map(|a| vec![Part::Text(a.clone())]).collect();
    Item { join: Join::Always, pipeline: Pipeline(vec![Command::Simple { words, redirects: Vec::new() }]) }
}

fn unexpected(token: &str) -> ParseError {
    ParseError(format!("syntax error near unexpected token `{token}'"))
}

fn end_of_file() -> ParseError {
    ParseError("syntax error: unexpected end of file".into())
}

fn not_simulated(what: &str) -> ParseError {
    ParseError(format!(
        "{what} is not simulated (kube-sim's shell runs pipelines, for, while and until loops and redirections)"
    ))
}

/// Where a list ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    End,
    /// The `)` of `$(…)`.
    Paren,
    /// A command position holding this reserved word (`done`, `do`).
    Word(&'static str),
}

/// The characters that end a word.
fn is_delimiter(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '`')
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

    /// Blanks, newlines and comments (where a command may start).
    fn skip_lines(&mut self) {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some('\n') => self.at += 1,
                Some('#') => self.skip_comment(),
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
        while !matches!(self.peek(), None | Some('\n')) {
            self.at += 1;
        }
    }

    /// Whether the reserved word `word` stands here (followed by a delimiter or the end).
    fn keyword(&self, word: &str) -> bool {
        let n = word.chars().count();
        self.chars.get(self.at..self.at + n).is_some_and(|w| w.iter().copied().eq(word.chars()))
            && self.peek_at(n).is_none_or(is_delimiter)
    }

    fn at_end(&self, until: Until) -> bool {
        match until {
            Until::End => self.peek().is_none(),
            Until::Paren => matches!(self.peek(), None | Some(')')),
            Until::Word(w) => self.peek().is_none() || self.keyword(w),
        }
    }

    /// Pipelines joined by `;`, newlines, `&&`, `||`, up to `until`.
    fn list(&mut self, until: Until) -> Result<Script, ParseError> {
        let mut items = Vec::new();
        let mut join = Join::Always;
        loop {
            if join == Join::Always {
                self.skip_blanks();
            } else {
                self.skip_lines();
            }
            if self.at_end(until) {
                break;
            }
            match self.peek() {
                Some(';' | '\n') if join == Join::Always => self.at += 1,
                Some('#') => self.skip_comment(),
                Some(c @ ('&' | '|')) if self.peek_at(1) == Some(c) => return Err(unexpected(&format!("{c}{c}"))),
                Some(';') => return Err(unexpected(";")),
                _ => {
                    items.push(Item { join, pipeline: self.pipeline(until)? });
                    join = Join::Always;
                    self.skip_blanks();
                    match (self.peek(), self.peek_at(1)) {
                        (Some('&'), Some('&')) => join = Join::And,
                        (Some('|'), Some('|')) => join = Join::Or,
                        (Some(';' | '\n'), _) => {}
                        _ if self.at_end(until) => continue,
                        (Some('#'), _) => continue,
                        (Some(c), _) => return Err(unexpected(&c.to_string())),
                        (None, _) => continue,
                    }
                    self.at += if join == Join::Always { 1 } else { 2 };
                }
            }
        }
        if join != Join::Always {
            return Err(end_of_file());
        }
        Ok(items)
    }

    fn pipeline(&mut self, until: Until) -> Result<Pipeline, ParseError> {
        let mut commands = vec![self.command(until)?];
        loop {
            self.skip_blanks();
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.at += 1;
                self.skip_lines();
                if self.peek().is_none() {
                    return Err(end_of_file());
                }
                commands.push(self.command(until)?);
            } else {
                return Ok(Pipeline(commands));
            }
        }
    }

    fn command(&mut self, until: Until) -> Result<Command, ParseError> {
        self.skip_blanks();
        if self.keyword("for") {
            return self.for_loop();
        }
        for (word, until) in [("while", false), ("until", true)] {
            if self.keyword(word) {
                self.at += word.len();
                return self.while_loop(until);
            }
        }
        for word in ["do", "done", "in", "then", "fi", "esac"] {
            if self.keyword(word) {
                return Err(unexpected(word));
            }
        }
        for word in ["if", "case", "function", "select"] {
            if self.keyword(word) {
                return Err(not_simulated(&format!("`{word}'")));
            }
        }
        let (words, redirects) = self.simple(until)?;
        if words.is_empty() && redirects.is_empty() {
            return Err(match self.peek() {
                None => end_of_file(),
                Some('\n') => unexpected("newline"),
                Some(c) => unexpected(&c.to_string()),
            });
        }
        Ok(Command::Simple { words, redirects })
    }

    /// Words and redirections up to an operator (`;`, `&&`, `|`, a newline, `)` of `$(…)`).
    fn simple(&mut self, until: Until) -> Result<(Vec<Word>, Vec<Redirect>), ParseError> {
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        loop {
            self.skip_blanks();
            let digits = self.chars[self.at..].iter().take_while(|c| c.is_ascii_digit()).count();
            match self.peek() {
                None | Some(';' | '\n' | '|') => break,
                Some(')') if until == Until::Paren => break,
                Some('#') => {
                    self.skip_comment();
                    break;
                }
                Some('&') if self.peek_at(1) == Some('>') => {
                    self.at += 2;
                    let append = self.peek() == Some('>');
                    self.at += usize::from(append);
                    let file = self.target()?;
                    redirects.push(Redirect::Write { fd: 1, file, append });
                    redirects.push(Redirect::Dup { fd: 2, to: 1 });
                }
                Some('&') if self.peek_at(1) == Some('&') => break,
                Some('&') => return Err(not_simulated("`&' (a background job)")),
                Some('<' | '>') => redirects.push(self.redirect(None)?),
                Some(_) if digits > 0 && matches!(self.peek_at(digits), Some('<' | '>')) => {
                    let fd: String = self.chars[self.at..self.at + digits].iter().collect();
                    self.at += digits;
                    let fd = fd.parse().map_err(|_| ParseError(format!("{fd}: bad file descriptor")))?;
                    redirects.push(self.redirect(Some(fd))?);
                }
                Some('(' | ')') => return Err(not_simulated("a subshell `( … )'")),
                Some('`') => return Err(not_simulated("command substitution with backquotes")),
                Some(_) => words.push(self.word()?),
            }
        }
        Ok((words, redirects))
    }

    /// `>`, `>>`, `>|`, `<`, `>&M`, `<&M` (at the operator; `fd` given before it).
    fn redirect(&mut self, fd: Option<u32>) -> Result<Redirect, ParseError> {
        let input = self.peek() == Some('<');
        self.at += 1;
        if self.peek() == Some('&') {
            self.at += 1;
            let digits: String = self.chars[self.at..].iter().take_while(|c| c.is_ascii_digit()).collect();
            let next = self.peek_at(digits.len());
            if digits.is_empty() || next.is_some_and(|c| !is_delimiter(c)) {
                return Err(not_simulated("a redirection to anything but a file descriptor number after `>&'"));
            }
            self.at += digits.len();
            let to = digits.parse().map_err(|_| ParseError(format!("{digits}: bad file descriptor")))?;
            return Ok(Redirect::Dup { fd: fd.unwrap_or(u32::from(!input)), to });
        }
        if input {
            return Ok(Redirect::Read { fd: fd.unwrap_or(0), file: self.target()? });
        }
        let append = self.peek() == Some('>');
        if append || self.peek() == Some('|') {
            self.at += 1;
        }
        Ok(Redirect::Write { fd: fd.unwrap_or(1), file: self.target()?, append })
    }

    /// The word a redirection names.
    fn target(&mut self) -> Result<Word, ParseError> {
        self.skip_blanks();
        match self.peek() {
            None => Err(unexpected("newline")),
            Some(c) if is_delimiter(c) => Err(unexpected(if c == '\n' { "newline" } else { "redirection" })),
            Some(_) => self.word(),
        }
    }

    /// `for NAME [in WORDS…] ; do LIST ; done` (at `for`).
    fn for_loop(&mut self) -> Result<Command, ParseError> {
        self.at += 3;
        self.skip_blanks();
        let var: String = self.chars[self.at..].iter().take_while(|c| !is_delimiter(**c)).collect();
        let valid = var.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(ParseError(format!("`{var}': not a valid identifier")));
        }
        self.at += var.chars().count();
        self.skip_lines();
        let mut items = None;
        if self.keyword("in") {
            self.at += 2;
            let mut words = Vec::new();
            loop {
                self.skip_blanks();
                match self.peek() {
                    Some(';' | '\n') => {
                        self.at += 1;
                        break;
                    }
                    None => return Err(end_of_file()),
                    Some(c) if is_delimiter(c) => return Err(unexpected(&c.to_string())),
                    Some(_) => words.push(self.word()?),
                }
            }
            items = Some(words);
        } else if self.peek() == Some(';') {
            self.at += 1;
        }
        self.skip_lines();
        if !self.keyword("do") {
            return Err(match self.peek() {
                None => end_of_file(),
                Some(_) => {
                    unexpected(&self.chars[self.at..].iter().take_while(|c| !is_delimiter(**c)).collect::<String>())
                }
            });
        }
        let (body, redirects) = self.loop_body()?;
        Ok(Command::For { var, items, body, redirects })
    }

    /// A loop's `do LIST; done` (at `do`), and the redirections after `done`.
    fn loop_body(&mut self) -> Result<(Script, Vec<Redirect>), ParseError> {
        self.at += 2;
        let body = self.list(Until::Word("done"))?;
        if !self.keyword("done") {
            return Err(end_of_file());
        }
        if body.is_empty() {
            return Err(unexpected("done"));
        }
        self.at += 4;
        let (words, redirects) = self.simple(Until::End)?;
        if let Some(word) = words.first() {
            return Err(unexpected(&word_text(word)));
        }
        Ok((body, redirects))
    }

    /// `while LIST; do LIST; done` (after `while` or `until`).
    fn while_loop(&mut self, until: bool) -> Result<Command, ParseError> {
        self.skip_blanks();
        if let Some(c @ (';' | '&' | '|' | ')')) = self.peek() {
            return Err(unexpected(&c.to_string()));
        }
        let condition = self.list(Until::Word("do"))?;
        if !self.keyword("do") {
            return Err(end_of_file());
        }
        if condition.is_empty() {
            return Err(unexpected("do"));
        }
        let (body, redirects) = self.loop_body()?;
        Ok(Command::While { condition, body, until, redirects })
    }

    /// One word, up to a blank or an operator.
    fn word(&mut self) -> Result<Word, ParseError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match c {
                c if is_delimiter(c) => break,
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
                    // `''` is a word even when empty.
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                '"' => {
                    self.at += 1;
                    self.double_quoted(&mut parts, &mut text)?;
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                '$' => self.dollar(&mut parts, &mut text, false)?,
                _ => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        if !text.is_empty() || parts.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(merge_texts(parts))
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
                Some('`') => return Err(not_simulated("command substitution with backquotes")),
                Some('$') => self.dollar(parts, text, true)?,
                Some(ch) => {
                    text.push(ch);
                    self.at += 1;
                }
            }
        }
    }

    /// `$NAME`, `${NAME}`, `$?`, `$(…)` (at the `$`); a `$` before anything else is literal.
    fn dollar(&mut self, parts: &mut Vec<Part>, text: &mut String, quoted: bool) -> Result<(), ParseError> {
        self.at += 1;
        let part = match self.peek() {
            Some('?') => {
                self.at += 1;
                Part::Var { name: "?".into(), quoted }
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
                Part::Var { name, quoted }
            }
            Some('(') if self.peek_at(1) == Some('(') => return Err(not_simulated("arithmetic `$((…))'")),
            Some('(') => {
                self.at += 1;
                let script = self.list(Until::Paren)?;
                if self.peek() != Some(')') {
                    return Err(ParseError("unexpected EOF while looking for matching `)'".into()));
                }
                self.at += 1;
                Part::Command { script, quoted }
            }
            Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {
                let mut name = String::new();
                while let Some(ch) = self.peek().filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_') {
                    name.push(ch);
                    self.at += 1;
                }
                Part::Var { name, quoted }
            }
            _ => {
                text.push('$');
                return Ok(());
            }
        };
        if !text.is_empty() {
            parts.push(Part::Text(std::mem::take(text)));
        }
        parts.push(part);
        Ok(())
    }
}

/// Adjacent texts as one (`a'b'"c"` is the text `abc`). An empty text stays: `''` and `"$X"` are
/// a field even when empty.
fn merge_texts(parts: Vec<Part>) -> Word {
    let mut out: Word = Vec::new();
    for part in parts {
        match (out.last_mut(), part) {
            (Some(Part::Text(a)), Part::Text(b)) => a.push_str(&b),
            (_, part) => out.push(part),
        }
    }
    out
}

/// A word's literal text (for messages).
fn word_text(word: &Word) -> String {
    word.iter().map(|p| if let Part::Text(t) = p { t.as_str() } else { "$…" }).collect()
}

#[cfg(test)]
#[path = "words_tests.rs"]
mod tests;
