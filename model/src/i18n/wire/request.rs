//! Requests and their parameters: a request that cannot be built, list and watch parameters the
//! concepts page's tables refuse, and selectors that do not parse.

use kube_wire::params::ParamsError;
use kube_wire::request::RequestError;
use kube_wire::selector::{
    FieldProblem, SelectorError, SelectorProblem, INTEGER_OPERATORS, LABEL_OPERATORS, LAST_LABEL_OPERATOR,
    SET_OPERATORS,
};

use crate::i18n::{Localized, Msg, Text};

impl Localized for RequestError {
    fn text(&self) -> Text {
        match self {
            RequestError::NamespaceOnClusterScoped(resource, namespace) => {
                Text::new(Msg::RequestNamespaceOnClusterScoped)
                    .with("resource", resource)
                    .with("namespace", format!("{namespace:?}"))
            }
            RequestError::BadName(name) => Text::new(Msg::RequestBadName).with("name", format!("{name:?}")),
            RequestError::ApplyThroughPatch => Text::new(Msg::RequestApplyThroughPatch),
            RequestError::Yaml(error) => error.text(),
        }
    }
}

impl Localized for ParamsError {
    fn text(&self) -> Text {
        match self {
            ParamsError::MatchWithoutResourceVersion(m) => Text::new(Msg::ParamsMatchWithoutVersion).with("match", m),
            ParamsError::ExactAtAny => Text::new(Msg::ParamsExactAtAny),
            ParamsError::ContinueWithAnyVersion => Text::new(Msg::ParamsContinueWithAnyVersion),
            ParamsError::ContinueWithResourceVersion(rv) => {
                Text::new(Msg::ParamsContinueWithVersion).with("version", rv)
            }
            ParamsError::ContinueWithMatch => Text::new(Msg::ParamsContinueWithMatch),
            ParamsError::ZeroLimit => Text::new(Msg::ParamsZeroLimit),
            ParamsError::InitialEventsWithoutNotOlderThan => Text::new(Msg::ParamsInitialEventsWithoutNotOlderThan),
            ParamsError::WatchMatchWithoutInitialEvents(m) => {
                Text::new(Msg::ParamsWatchMatchWithoutInitialEvents).with("match", m)
            }
        }
    }
}

impl Localized for SelectorError {
    fn text(&self) -> Text {
        Text::new(Msg::SelectorErrorAt).with_text("message", &self.message).with("at", self.at + 1)
    }
}

impl Localized for SelectorProblem {
    fn text(&self) -> Text {
        match self {
            SelectorProblem::FoundComma => Text::new(Msg::SelectorFoundComma),
            SelectorProblem::InvalidField { selector, part, problem } => Text::new(Msg::SelectorInvalidField)
                .with("selector", selector)
                .with("part", part)
                .with_text("problem", problem),
            SelectorProblem::ExpectedOperator { found } => Text::new(Msg::SelectorExpectedOperator)
                .with("found", found)
                .with("operators", LABEL_OPERATORS)
                .with("last", LAST_LABEL_OPERATOR),
            SelectorProblem::ExpectedInteger { value } => {
                Text::new(Msg::SelectorExpectedInteger).with("operators", INTEGER_OPERATORS).with("value", value)
            }
            SelectorProblem::ExpectedSet { found } => Text::new(Msg::SelectorExpectedSet).with("found", found),
            SelectorProblem::EmptySet => Text::new(Msg::SelectorEmptySet).with("operators", SET_OPERATORS),
            SelectorProblem::InvalidKey { key } => Text::new(Msg::SelectorInvalidKey).with("key", key),
            SelectorProblem::InvalidValue { key, value } => {
                Text::new(Msg::SelectorInvalidValue).with("key", key).with("value", value)
            }
        }
    }
}

impl Localized for FieldProblem {
    fn text(&self) -> Text {
        match self {
            FieldProblem::ExpectedOperator => Text::new(Msg::SelectorExpectedFieldOperator),
            FieldProblem::ExpectedName => Text::new(Msg::SelectorExpectedFieldName),
            FieldProblem::NameCharacter(c) => Text::new(Msg::SelectorFieldNameCharacter).with("character", c),
        }
    }
}

#[cfg(test)]
mod tests {
    use kube_wire::codec::yaml::EncodeYamlError;
    use kube_wire::selector::{FieldSelector, LabelSelector};

    use super::*;
    use crate::i18n::wire::tests::{check, check_all};

    #[test]
    fn request_and_params_errors_read_in_english_as_their_catalogue_texts() {
        check_all(&[
            RequestError::NamespaceOnClusterScoped("nodes".into(), "demo".into()),
            RequestError::BadName("a/b".into()),
            RequestError::ApplyThroughPatch,
            RequestError::Yaml(EncodeYamlError("x".into())),
        ]);
        check_all(&[
            ParamsError::MatchWithoutResourceVersion("Exact"),
            ParamsError::ExactAtAny,
            ParamsError::ContinueWithAnyVersion,
            ParamsError::ContinueWithResourceVersion("12".into()),
            ParamsError::ContinueWithMatch,
            ParamsError::ZeroLimit,
            ParamsError::InitialEventsWithoutNotOlderThan,
            ParamsError::WatchMatchWithoutInitialEvents("Exact"),
        ]);
    }

    #[test]
    fn selector_errors_read_in_english_as_their_catalogue_texts() {
        for (label, field) in [("a,,b", "a"), ("a b", "=x"), ("a>x", "a/b=x"), ("a in x", "a==x,,"), ("a in ()", "")] {
            if let Err(error) = LabelSelector::parse(label) {
                check(&error);
            }
            if let Err(error) = FieldSelector::parse(field) {
                check(&error);
            }
        }
        let problems = [
            SelectorProblem::FoundComma,
            SelectorProblem::ExpectedOperator { found: "x".into() },
            SelectorProblem::ExpectedInteger { value: "x".into() },
            SelectorProblem::ExpectedSet { found: "x".into() },
            SelectorProblem::EmptySet,
            SelectorProblem::InvalidKey { key: "-a".into() },
            SelectorProblem::InvalidValue { key: "a".into(), value: "-b".into() },
        ];
        let fields = [FieldProblem::ExpectedOperator, FieldProblem::ExpectedName, FieldProblem::NameCharacter('/')];
        for (i, message) in problems
            .into_iter()
            .chain(fields.map(|problem| SelectorProblem::InvalidField {
                selector: "a=b,c".into(),
                part: "c".into(),
                problem,
            }))
            .enumerate()
        {
            check(&SelectorError { message, at: i });
        }
    }
}
