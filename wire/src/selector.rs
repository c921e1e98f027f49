//! Label and field selectors (the concepts page's `labelSelector` and `fieldSelector` parameters),
//! parsed into requirements. The explorer checks what a person typed before sending it; the
//! simulated cluster parses the same way and matches objects against the requirements.
//!
//! The grammar is apimachinery's: requirements separated by commas; a label requirement is `key`,
//! `!key`, `key=value`, `key==value`, `key!=value`, `key in (v1,v2)`, `key notin (v1,v2)`, `key>N`
//! or `key<N`; a field requirement is `field=value`, `field==value` or `field!=value`. Errors
//! start with the server's own words (`unable to parse requirement`, `invalid selector`) and say
//! what was expected and at which character.

/// What a label requirement asks of one label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelOp {
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    GreaterThan(i64),
    LessThan(i64),
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRequirement {
    pub key: String,
    pub op: LabelOp,
}

impl LabelRequirement {
    /// Whether a label set (looked up by `label`) satisfies the requirement.
    pub fn matches<'a>(&self, label: impl Fn(&str) -> Option<&'a str>) -> bool {
        let value = label(&self.key);
        match &self.op {
            LabelOp::Equals(v) => value == Some(v.as_str()),
            LabelOp::NotEquals(v) => value != Some(v.as_str()),
            LabelOp::In(vs) => value.is_some_and(|l| vs.iter().any(|v| v == l)),
            LabelOp::NotIn(vs) => value.is_none_or(|l| vs.iter().all(|v| v != l)),
            LabelOp::Exists => value.is_some(),
            LabelOp::DoesNotExist => value.is_none(),
            LabelOp::GreaterThan(n) => value.and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l > *n),
            LabelOp::LessThan(n) => value.and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l < *n),
        }
    }
}

/// A parsed label selector; empty selects everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(pub Vec<LabelRequirement>);

/// One requirement of a field selector: `field=value` (`equals`) or `field!=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    pub field: String,
    pub equals: bool,
    pub value: String,
}

/// A parsed field selector; empty selects everything. Which fields a type supports is the
/// server's knowledge, not the grammar's: only the server can say `field label not supported`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(pub Vec<FieldRequirement>);

/// Why a selector does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {})", .at + 1)]
pub struct SelectorError {
    /// The server's wording of the problem.
    pub message: SelectorProblem,
    /// 0-based character offset in the selector where the problem is.
    pub at: usize,
}

/// The label operators a requirement may have after its key, in the server's words.
pub const LABEL_OPERATORS: &str = "'!', 'in', 'notin', '=', '==', '!=', '>'";
/// The last of [`LABEL_OPERATORS`], named apart ("… or '<'").
pub const LAST_LABEL_OPERATOR: &str = "'<'";
/// The operators whose value must be an integer.
pub const INTEGER_OPERATORS: &str = "'gt', 'lt'";
/// The operators that take a set of values.
pub const SET_OPERATORS: &str = "'in', 'notin'";

/// What is wrong with a selector, in the server's words (apimachinery's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorProblem {
    #[error("unable to parse requirement: found ',', expected: identifier")]
    FoundComma,
    #[error("invalid selector: '{selector}'; can't understand '{part}': {problem}")]
    InvalidField { selector: String, part: String, problem: FieldProblem },
    #[error(
        "unable to parse requirement: found '{found}', expected: identifier, {operators} or {last}",
        operators = LABEL_OPERATORS,
        last = LAST_LABEL_OPERATOR
    )]
    ExpectedOperator { found: String },
    #[error(
        "unable to parse requirement: for {operators} operators, the value must be an integer, found '{value}'",
        operators = INTEGER_OPERATORS
    )]
    ExpectedInteger { value: String },
    #[error("unable to parse requirement: found '{found}', expected: a set of values in parentheses, like (a,b)")]
    ExpectedSet { found: String },
    #[error("unable to parse requirement: for {operators} operators, values set can't be empty", operators = SET_OPERATORS)]
    EmptySet,
    #[error(
        "unable to parse requirement: key: Invalid value: \"{key}\": name part must consist of alphanumeric \
         characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63 characters), \
         with an optional DNS subdomain prefix and '/'"
    )]
    InvalidKey { key: String },
    #[error(
        "unable to parse requirement: values[0][{key}]: Invalid value: \"{value}\": a valid label must be an empty \
         string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric \
         character"
    )]
    InvalidValue { key: String, value: String },
}

/// What is wrong with one requirement of a field selector.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldProblem {
    #[error("expected field=value, field==value or field!=value")]
    ExpectedOperator,
    #[error("expected a field name before the operator")]
    ExpectedName,
    #[error("'{0}' cannot be part of a field name (letters, digits and '.')")]
    NameCharacter(char),
}

impl LabelSelector {
    /// Parses a `labelSelector` value.
    pub fn parse(text: &str) -> Result<LabelSelector, SelectorError> {
        let mut requirements = Vec::new();
        for (start, part) in split_top_level(text) {
            if part.trim().is_empty() {
                if text.trim().is_empty() {
                    break;
                }
                return Err(SelectorError { message: SelectorProblem::FoundComma, at: start });
            }
            requirements.push(parse_label_requirement(part, start)?);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether every requirement holds for the labels looked up by `label`.
    pub fn matches<'a>(&self, label: impl Fn(&str) -> Option<&'a str> + Copy) -> bool {
        self.0.iter().all(|r| r.matches(label))
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FieldSelector {
    /// Parses a `fieldSelector` value.
    pub fn parse(text: &str) -> Result<FieldSelector, SelectorError> {
        let mut requirements = Vec::new();
        if text.trim().is_empty() {
            return Ok(FieldSelector(requirements));
        }
        let mut offset = 0;
        for part in text.split(',') {
            let start = offset;
            offset += part.chars().count() + 1;
            // The real parser skips empty terms (`metadata.name=x,`, as kr8s sends):
            // apimachinery/pkg/fields/selector.go, parseSelector's `if part == "" { continue }`.
            if part.is_empty() {
                continue;
            }
            let bad = |problem: FieldProblem, at: usize| SelectorError {
                message: SelectorProblem::InvalidField {
                    selector: text.to_owned(),
                    part: part.trim().to_owned(),
                    problem,
                },
                at,
            };
            let (field, equals, value, op_at) = if let Some(i) = part.find("!=") {
                (&part[..i], false, &part[i + 2..], i)
            } else if let Some(i) = part.find("==") {
                (&part[..i], true, &part[i + 2..], i)
            } else if let Some(i) = part.find('=') {
                (&part[..i], true, &part[i + 1..], i)
            } else {
                return Err(bad(FieldProblem::ExpectedOperator, start));
            };
            let field = field.trim();
            if field.is_empty() {
                return Err(bad(FieldProblem::ExpectedName, start + char_offset(part, op_at)));
            }
            if let Some((i, c)) = field.char_indices().find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '.')) {
                let lead = part.len() - part.trim_start().len();
                return Err(bad(FieldProblem::NameCharacter(c), start + char_offset(part, lead + i)));
            }
            requirements.push(FieldRequirement { field: field.to_owned(), equals, value: value.trim().to_owned() });
        }
        Ok(FieldSelector(requirements))
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The character offset of byte `index` in `text`.
fn char_offset(text: &str, index: usize) -> usize {
    text[..index.min(text.len())].chars().count()
}

/// Splits on commas outside parentheses, with each piece's character offset.
fn split_top_level(text: &str) -> Vec<(usize, &str)> {
    let mut pieces = Vec::new();
    let (mut depth, mut start_byte, mut start_char) = (0i32, 0, 0);
    for (chars, (i, c)) in text.char_indices().enumerate() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                pieces.push((start_char, &text[start_byte..i]));
                start_byte = i + 1;
                start_char = chars + 1;
            }
            _ => {}
        }
    }
    pieces.push((start_char, &text[start_byte..]));
    pieces
}

fn parse_label_requirement(part: &str, start: usize) -> Result<LabelRequirement, SelectorError> {
    let lead = part.len() - part.trim_start().len();
    let trimmed = part.trim();
    let at = |byte: usize| start + char_offset(part, lead + byte);
    let expected = |found: &str, byte: usize| SelectorError {
        message: SelectorProblem::ExpectedOperator { found: found.to_owned() },
        at: at(byte),
    };
    if let Some(rest) = trimmed.strip_prefix('!') {
        let key = rest.trim();
        check_key(key, at(1 + (rest.len() - rest.trim_start().len())))?;
        return Ok(LabelRequirement { key: key.to_owned(), op: LabelOp::DoesNotExist });
    }
    let key_end = trimmed.find(['=', '!', '<', '>', ' ', '\t', '(', ')']).unwrap_or(trimmed.len());
    let key = &trimmed[..key_end];
    if key.is_empty() {
        return Err(expected(&trimmed[..trimmed.chars().next().map_or(0, char::len_utf8)], 0));
    }
    check_key(key, at(0))?;
    let rest = &trimmed[key_end..];
    let op_at = key_end + (rest.len() - rest.trim_start().len());
    let rest = rest.trim_start();
    let value_of = |op_len: usize| {
        let raw = &rest[op_len..];
        let value_at = op_at + op_len + (raw.len() - raw.trim_start().len());
        (raw.trim(), value_at)
    };
    let op = if rest.is_empty() {
        LabelOp::Exists
    } else if rest.starts_with("!=") || rest.starts_with("==") || rest.starts_with('=') {
        let len = if rest.starts_with('=') && !rest.starts_with("==") { 1 } else { 2 };
        let (value, value_at) = value_of(len);
        check_value(key, value, at(value_at))?;
        if rest.starts_with("!=") {
            LabelOp::NotEquals(value.to_owned())
        } else {
            LabelOp::Equals(value.to_owned())
        }
    } else if rest.starts_with('>') || rest.starts_with('<') {
        let (value, value_at) = value_of(1);
        let n = value.parse::<i64>().map_err(|_| SelectorError {
            message: SelectorProblem::ExpectedInteger { value: value.to_owned() },
            at: at(value_at),
        })?;
        if rest.starts_with('>') {
            LabelOp::GreaterThan(n)
        } else {
            LabelOp::LessThan(n)
        }
    } else if let Some(set) = rest.strip_prefix("notin").or_else(|| rest.strip_prefix("in")) {
        let negated = rest.starts_with("notin");
        let op_len = rest.len() - set.len();
        let values = parse_set(set, at(op_at + op_len))?;
        if let Some(bad) = values.iter().find_map(|v| check_value(key, v, at(op_at)).err()) {
            return Err(bad);
        }
        if negated {
            LabelOp::NotIn(values)
        } else {
            LabelOp::In(values)
        }
    } else {
        let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
        return Err(expected(&word, op_at));
    };
    Ok(LabelRequirement { key: key.to_owned(), op })
}

/// `(v1, v2)` after `in` / `notin`.
fn parse_set(text: &str, at: usize) -> Result<Vec<String>, SelectorError> {
    let inner = text
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| SelectorError { message: SelectorProblem::ExpectedSet { found: text.trim().to_owned() }, at })?;
    let values: Vec<String> = inner.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().all(String::is_empty) {
        return Err(SelectorError { message: SelectorProblem::EmptySet, at });
    }
    Ok(values)
}

/// A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters,
/// alphanumeric at both ends with `-`, `_` and `.` inside.
fn check_key(key: &str, at: usize) -> Result<(), SelectorError> {
    let name = key.rsplit_once('/').map_or(
        key,
        |(prefix, name)| {
            if prefix.is_empty() || prefix.len() > 253 {
                ""
            } else {
                name
            }
        },
    );
    if name_is_valid(name) && (!key.contains('/') || key.split('/').count() == 2) {
        return Ok(());
    }
    Err(SelectorError { message: SelectorProblem::InvalidKey { key: key.to_owned() }, at })
}

fn check_value(key: &str, value: &str, at: usize) -> Result<(), SelectorError> {
    if value.is_empty() || name_is_valid(value) {
        return Ok(());
    }
    Err(SelectorError { message: SelectorProblem::InvalidValue { key: key.to_owned(), value: value.to_owned() }, at })
}

fn name_is_valid(name: &str) -> bool {
    let ends_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    name.len() <= 63
        && ends_ok(name.chars().next())
        && ends_ok(name.chars().last())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_label(text: &str, expect: &[(&str, LabelOp)]) {
        let parsed = LabelSelector::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let expect: Vec<LabelRequirement> =
            expect.iter().map(|(k, op)| LabelRequirement { key: (*k).to_owned(), op: op.clone() }).collect();
        assert_eq!(parsed.0, expect, "{text}");
    }

    #[track_caller]
    fn check_label_error(text: &str, message_part: &str, at: usize) {
        let error = LabelSelector::parse(text).expect_err(text);
        assert!(error.message.to_string().contains(message_part), "{text}: {error}");
        assert_eq!(error.at, at, "{text}: {error}");
    }

    #[test]
    fn every_label_operator_parses() {
        use LabelOp::*;
        check_label("", &[]);
        check_label("app=web", &[("app", Equals("web".into()))]);
        check_label("app==web, tier!=cache", &[("app", Equals("web".into())), ("tier", NotEquals("cache".into()))]);
        check_label("tier in (front, back)", &[("tier", In(vec!["front".into(), "back".into()]))]);
        check_label("tier notin (a,b),x", &[("tier", NotIn(vec!["a".into(), "b".into()])), ("x", Exists)]);
        check_label("!canary", &[("canary", DoesNotExist)]);
        check_label("app.kubernetes.io/name=web", &[("app.kubernetes.io/name", Equals("web".into()))]);
        check_label("gen>3,gen<10", &[("gen", GreaterThan(3)), ("gen", LessThan(10))]);
        check_label("empty=", &[("empty", Equals(String::new()))]);
    }

    #[test]
    fn label_errors_say_what_was_expected_and_where() {
        check_label_error("app in (", "expected: a set of values", 6);
        check_label_error("app in web", "expected: a set of values", 6);
        check_label_error("app=web,", "found ','", 8);
        check_label_error("a b=c", "found 'b=c'", 2);
        check_label_error("app=-web", "a valid label must", 4);
        check_label_error("gen>x", "must be an integer", 4);
        check_label_error("tier in ()", "can't be empty", 7);
        check_label_error("-bad=x", "Invalid value: \"-bad\"", 0);
        check_label_error("=web", "found '='", 0);
    }

    #[test]
    fn label_errors_count_the_spaces_before_a_requirement_its_operator_and_its_value() {
        // The second requirement starts at character 8, after two spaces.
        check_label_error("app=web,  tier=-x", "a valid label must", 15);
        check_label_error("app=  -web", "a valid label must", 6);
        check_label_error("a  b=c", "found 'b=c'", 3);
        check_label_error("!  -bad", "Invalid value: \"-bad\"", 3);
        check_label_error("app=web, tier in (a, -b)", "Invalid value: \"-b\"", 14);
        check_label_error("app=web, tier in web", "expected: a set of values", 16);
    }

    #[test]
    fn a_stray_closing_parenthesis_does_not_hide_the_next_comma() {
        check_label_error("a)=b,c", "found ')=b'", 1);
        check_label("a in (x),b", &[("a", LabelOp::In(vec!["x".into()])), ("b", LabelOp::Exists)]);
    }

    #[test]
    fn a_label_key_has_at_most_one_prefix_of_at_most_253_characters_and_a_name_of_at_most_63() {
        let prefix = "p".repeat(253);
        let name = "n".repeat(63);
        let key = format!("{prefix}/{name}");
        check_label(&key, &[(key.as_str(), LabelOp::Exists)]);
        check_label_error(&format!("p{prefix}/{name}"), "Invalid value", 0);
        check_label_error(&format!("{prefix}/{name}n"), "Invalid value", 0);
        check_label_error("/app=x", "Invalid value: \"/app\"", 0);
        check_label_error("a/b/c=x", "Invalid value: \"a/b/c\"", 0);
        check_label_error("app-=x", "Invalid value: \"app-\"", 0);
        check_label("my_app.v-2=x", &[("my_app.v-2", LabelOp::Equals("x".into()))]);
        check_label(&format!("a={name}"), &[("a", LabelOp::Equals(name.clone()))]);
        check_label_error(&format!("a={name}n"), "a valid label must", 2);
    }

    #[test]
    fn label_requirements_match_as_the_server_does() {
        let labels = |k: &str| match k {
            "app" => Some("web"),
            "gen" => Some("5"),
            _ => None,
        };
        let matches = |text: &str| LabelSelector::parse(text).map(|s| s.matches(labels)).unwrap_or(false);
        assert!(matches("app=web,gen>3,gen<6"));
        assert!(matches("tier notin (a)"));
        assert!(!matches("tier in (a)"));
        assert!(matches("!tier,app"));
        assert!(!matches("app!=web"));
        assert!(LabelSelector::default().is_empty());
    }

    #[test]
    fn label_requirements_match_at_their_boundaries() {
        let labels = |k: &str| match k {
            "app" => Some("web"),
            "gen" => Some("5"),
            _ => None,
        };
        let matches = |text: &str| LabelSelector::parse(text).map(|s| s.matches(labels)).unwrap_or(false);
        // Set membership: the value itself, not any other member of the set.
        assert!(matches("app in (web)"));
        assert!(!matches("app in (api)"));
        assert!(!matches("app notin (web)"));
        assert!(matches("app notin (api)"));
        // Gt and Lt are strict, as the server's (apimachinery labels.Requirement.Matches).
        assert!(!matches("gen>5"));
        assert!(!matches("gen<5"));
        assert!(matches("gen>4") && matches("gen<6"));
        assert!(!LabelSelector::parse("app").expect("parses").is_empty());
    }

    #[test]
    fn a_field_selector_reads_each_operator_and_its_value() {
        let parsed = FieldSelector::parse("metadata.name==web,status.phase=Running,spec.nodeName!=n1").expect("parses");
        let read: Vec<(&str, bool, &str)> =
            parsed.0.iter().map(|r| (r.field.as_str(), r.equals, r.value.as_str())).collect();
        assert_eq!(
            read,
            [("metadata.name", true, "web"), ("status.phase", true, "Running"), ("spec.nodeName", false, "n1")]
        );
    }

    #[test]
    fn field_errors_count_the_terms_and_spaces_before_them() {
        let error = FieldSelector::parse("a=1, =x").expect_err("no field");
        assert!(error.to_string().contains("expected a field name"), "{error}");
        assert_eq!(error.at, 5);
        let error = FieldSelector::parse("a=1,  sp/c=1").expect_err("bad field");
        assert!(error.to_string().contains("'/' cannot be part"), "{error}");
        assert_eq!(error.at, 8);
        assert!(!FieldSelector::parse("metadata.name=web").expect("parses").is_empty());
    }

    #[test]
    fn field_selectors_parse_and_point_at_errors() {
        let parsed = FieldSelector::parse("status.phase=Running, spec.nodeName!=node-1").expect("parses");
        assert_eq!(
            parsed.0,
            vec![
                FieldRequirement { field: "status.phase".into(), equals: true, value: "Running".into() },
                FieldRequirement { field: "spec.nodeName".into(), equals: false, value: "node-1".into() },
            ]
        );
        assert!(FieldSelector::parse(" ").expect("empty parses").is_empty());
        let trailing = FieldSelector::parse("metadata.name=x,").expect("an empty term is skipped");
        assert_eq!(
            trailing.0,
            vec![FieldRequirement { field: "metadata.name".into(), equals: true, value: "x".into() }]
        );
        assert_eq!(FieldSelector::parse(",a=1,,b!=2").expect("empty terms are skipped").0.len(), 2);
        assert!(FieldSelector::parse(",").expect("only empty terms").is_empty());
        let error = FieldSelector::parse("a=1,,b").expect_err("a term without an operator still fails");
        assert_eq!(error.at, 5);
        let error = FieldSelector::parse("metadata.name=a,status.phase").expect_err("no operator");
        assert!(error.message.to_string().starts_with("invalid selector: "), "{error}");
        assert_eq!(error.at, 16);
        let error = FieldSelector::parse("=x").expect_err("no field");
        assert_eq!(error.at, 0);
        let error = FieldSelector::parse("spec/x=1").expect_err("bad field");
        assert!(error.to_string().contains("'/' cannot be part of a field name"), "{error}");
        assert_eq!(error.at, 4);
    }
}
