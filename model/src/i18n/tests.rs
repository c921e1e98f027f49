use super::*;

#[track_caller]
fn check_preferred(browser: &[&str], expect: Language) {
    assert_eq!(Language::preferred(browser.iter().copied()), expect, "{browser:?}");
}

#[test]
fn the_first_browser_language_the_interface_speaks_is_picked() {
    check_preferred(&["uk-UA", "en-US"], Language::Ukrainian);
    check_preferred(&["de-DE", "fa-IR", "en"], Language::Persian);
    check_preferred(&["zh-Hans-CN"], Language::Chinese);
    check_preferred(&["zh_CN"], Language::Chinese);
    check_preferred(&["en-GB", "uk"], Language::English);
}

#[test]
fn english_is_the_fallback_and_traditional_chinese_is_not_simplified() {
    check_preferred(&[], Language::English);
    check_preferred(&["de", "fr-FR"], Language::English);
    check_preferred(&["zh-TW", "zh-Hant-HK"], Language::English);
    check_preferred(&["zh-HK", "uk"], Language::Ukrainian);
}

#[test]
fn a_language_round_trips_through_its_tag_and_only_persian_runs_right_to_left() {
    for language in Language::ALL {
        assert_eq!(Language::from_tag(language.tag()), Some(language));
        let rtl = language == Language::Persian;
        assert_eq!(language.direction(), if rtl { Direction::Rtl } else { Direction::Ltr });
    }
    assert_eq!(Language::English.file(), None);
    assert_eq!(Language::Persian.file().as_deref(), Some("i18n/fa.json"));
}

#[test]
fn fill_replaces_named_placeholders_and_leaves_the_rest() {
    let n = 3;
    assert_eq!(fill("{count} of {total} rows", &[("count", &n), ("total", &"10")]), "3 of 10 rows");
    assert_eq!(fill("no {value} here {", &[]), "no {value} here {");
    assert_eq!(fill("{ a } {b-c}", &[("a", &1)]), "{ a } {b-c}");
    assert_eq!(fill("{x}{x}", &[("x", &"é")]), "éé");
}

#[test]
fn placeholders_are_the_names_in_braces() {
    let found: Vec<&str> = placeholders("from {source} to {target}, {source} again, {not one}").into_iter().collect();
    assert_eq!(found, ["source", "target"]);
}

fn english_file() -> String {
    let entries: Vec<String> = Msg::ALL
        .iter()
        .map(|m| format!("{}:{}", serde_json::to_string(m.key()).unwrap(), serde_json::to_string(m.english()).unwrap()))
        .collect();
    format!("{{{}}}", entries.join(","))
}

#[test]
fn a_complete_file_parses_and_gives_each_message_its_text() {
    let table = Table::parse(&english_file()).expect("complete");
    for msg in Msg::ALL {
        assert_eq!(table.get(*msg), msg.english());
    }
}

#[test]
fn a_file_with_a_missing_or_extra_key_or_other_placeholders_is_refused() {
    let full = english_file();
    let missing = full.replacen("\"Cluster\":\"Cluster\",", "", 1);
    assert_eq!(Table::parse(&missing), Err(TableError::Missing("Cluster".into())));
    let extra = full.replacen('{', "{\"Nope\":\"x\",", 1);
    assert_eq!(Table::parse(&extra), Err(TableError::Unknown("Nope".into())));
    let renamed = full.replacen("from {source}", "from {origin}", 1);
    assert!(matches!(Table::parse(&renamed), Err(TableError::Placeholders { key, .. }) if key == "ApiBaseFrom"));
    assert!(matches!(Table::parse("[1, 2]"), Err(TableError::NotJson(_))));
}

#[test]
fn keys_are_unique() {
    let keys: BTreeSet<&str> = Msg::ALL.iter().map(|m| m.key()).collect();
    assert_eq!(keys.len(), Msg::ALL.len());
}

/// Every language file beside the app is complete: each key of the catalogue, no other, the
/// same placeholders as English, and no empty string.
#[test]
fn every_language_file_has_every_key_and_the_same_placeholders() {
    for language in Language::ALL {
        let Some(file) = language.file() else { continue };
        let json = kube_wire::testdata::repository_file(&file);
        let table = Table::parse(&json).unwrap_or_else(|e| panic!("{file}: {e}"));
        for msg in Msg::ALL {
            assert!(!table.get(*msg).trim().is_empty(), "{file}: {} is empty", msg.key());
        }
    }
}

#[test]
fn pieces_cut_a_message_at_its_placeholders() {
    use Piece::{Placeholder as P, Text as T};
    assert_eq!(pieces("Start {proxy} or {run}."), [T("Start "), P("proxy"), T(" or "), P("run"), T(".")]);
    assert_eq!(pieces("{a}{b}"), [P("a"), P("b")]);
    assert_eq!(pieces("no { placeholder }"), [T("no { placeholder }")]);
    assert_eq!(pieces(""), []);
}

#[test]
fn a_text_is_filled_in_english_by_display_and_in_a_language_by_its_table() {
    let cause = Text::new(Msg::SelectorEmptySet).with("operators", "'in', 'notin'");
    let text = Text::new(Msg::SelectorErrorAt).with_text("message", &cause).with("at", 7);
    assert_eq!(
        text.to_string(),
        "unable to parse requirement: for 'in', 'notin' operators, values set can't be empty (at character 7)"
    );
    let mut file: BTreeMap<&str, String> = Msg::ALL.iter().map(|m| (m.key(), m.english().to_owned())).collect();
    file.insert("SelectorErrorAt", "{message} [{at}]".to_owned());
    file.insert("SelectorEmptySet", "порожньо: {operators}".to_owned());
    let table = Table::parse(&serde_json::to_string(&file).unwrap()).expect("complete");
    assert_eq!(
        text.in_table(Some(&table)),
        "порожньо: \u{2066}'in', 'notin'\u{2069} [\u{2066}7\u{2069}]",
        "the cause is in the same language, the values isolated left to right"
    );
    assert_eq!(text.in_table(None), text.to_string());
}

fn table_of(language: Language) -> Table {
    let file = language.file().expect("a language file");
    Table::parse(&kube_wire::testdata::repository_file(&file)).unwrap()
}

#[test]
fn a_verbatim_text_is_the_same_words_in_every_language_kept_left_to_right() {
    let text = Text::verbatim("403 Forbidden: pods is forbidden");
    assert_eq!(text, Text::from("403 Forbidden: pods is forbidden"));
    assert_eq!(text.to_string(), "403 Forbidden: pods is forbidden");
    for language in [Language::Ukrainian, Language::Chinese, Language::Persian] {
        assert_eq!(text.in_table(Some(&table_of(language))), "\u{2066}403 Forbidden: pods is forbidden\u{2069}");
    }
}

/// In Persian the operators `'!', 'in', 'notin'` are a left-to-right run inside a right-to-left
/// sentence: unisolated, the bidirectional algorithm joins `'in'، 'notin'` into one run shown in
/// the wrong order. The whole list is one argument, isolated; English is unchanged.
#[test]
fn code_inside_a_persian_sentence_is_isolated_left_to_right_and_english_is_unchanged() {
    let error = kube_wire::selector::LabelSelector::parse("app=web,=x").expect_err("no key");
    let english = error.to_string();
    assert_eq!(
        english,
        "unable to parse requirement: found '=', expected: identifier, '!', 'in', 'notin', '=', '==', '!=', '>' or '<' (at character 9)"
    );
    let persian = error.text().in_table(Some(&table_of(Language::Persian)));
    assert!(
        persian.contains("\u{2066}'!', 'in', 'notin', '=', '==', '!=', '>'\u{2069} یا \u{2066}'<'\u{2069}"),
        "{persian}"
    );
    assert!(persian.contains("'\u{2066}=\u{2069}'"), "{persian}");
    assert_eq!(persian.matches('\u{2066}').count(), persian.matches('\u{2069}').count());
    assert!(!persian.contains("identifier"), "{persian}");
}

#[test]
fn each_message_reads_its_own_english_out_of_the_packed_catalogue() {
    assert_eq!(Msg::ALL[0], Msg::AppTitle);
    assert_eq!(Msg::AppTitle.english(), "Kube API Explorer");
    assert_eq!(Msg::Cluster.english(), "Cluster");
    assert_eq!(Msg::NoTypeNamedLike.english(), "No resource type is named like \"{query}\". ");
    assert_eq!(Msg::Verbatim.english(), "{text}");
    assert_eq!(Msg::ViewOneOf.english(), "{values} or {last}");
    // The last message ends where the packed English ends: the last entry of the catalogue's
    // second part, read from its source (so that a feature appending its texts needs no change here).
    let (name, english) = include_str!("outside.rs")
        .lines()
        .filter_map(|line| line.trim().split_once(" => \""))
        .filter_map(|(name, rest)| Some((name, rest.strip_suffix("\",")?)))
        .next_back()
        .expect("outside.rs has entries");
    let last = Msg::ALL.last().expect("a catalogue");
    assert_eq!(format!("{last:?}"), name);
    assert_eq!(last.english(), english.replace("\\\"", "\""));
    assert!(Msg::ALL.iter().all(|m| !m.english().is_empty()), "a message with no English");
}
