use ciborium_ll::{Decoder, Header};

use super::*;
use crate::codec::value::{Value, MAX_DEPTH};

#[test]
fn every_item_head_reads_as_ciborium_reads_it() {
    // Each initial byte, followed by argument bytes or cut short at each length.
    let argument = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x12, 0x34, 0x56];
    for initial in 0..=255u8 {
        for available in 0..=argument.len() {
            let input: Vec<u8> = std::iter::once(initial).chain(argument[..available].iter().copied()).collect();
            let mut reader = Reader::new(&input);
            let ours = reader.pull().map(|(at, header)| (at, format!("{header:?}"), reader.pos));
            let mut decoder = Decoder::from(&input[..]);
            let theirs = decoder.pull().map(|header| (0, format!("{header:?}"), decoder.offset()));
            match (&ours, &theirs) {
                (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "head {input:02x?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("head {input:02x?}: ours {ours:?}, ciborium's {theirs:?}"),
            }
        }
    }
    // A head after others is read at its offset.
    let input = [0x82, 0x19, 0x01, 0x00, 0x7a, 0, 0, 0, 0];
    let mut reader = Reader::new(&input);
    assert!(matches!(reader.pull(), Ok((0, Header::Array(Some(2))))));
    assert!(matches!(reader.pull(), Ok((1, Header::Positive(256)))));
    assert!(matches!(reader.pull(), Ok((4, Header::Text(Some(0))))));
    assert_eq!(reader.pos, input.len());
}

#[test]
fn diagnostic_notation_shows_tags_byte_strings_and_nesting() {
    // 55799({h'6b' ("k"): [1, -2, 1.5, "t"], "n": null}) in the server's form.
    let bytes = [0xd9, 0xd9, 0xf7, 0xa2, 0x41, b'k', 0x84, 0x01, 0x21, 0xf9, 0x3e, 0x00, 0x61, b't', 0x61, b'n', 0xf6];
    let text = diagnostic(&bytes, 1000).expect("valid");
    assert_eq!(text, "55799({\n  h'6b' /k/: [\n    1,\n    -2,\n    1.5,\n    \"t\"\n  ],\n  \"n\": null\n})");
    // A sequence: one item a line; indefinite lengths marked with `_`.
    assert_eq!(diagnostic(&[0x01, 0x9f, 0xff, 0xbf, 0xff], 100).expect("valid"), "1\n[_]\n{_}");
    assert_eq!(
        diagnostic(&[0xf7, 0xf0, 0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 100).expect("valid"),
        "undefined\nsimple(16)\n-18446744073709551616"
    );
}

#[test]
fn diagnostic_notation_stops_at_its_limit_and_reports_bad_input_with_its_offset() {
    let long = encode_cbor(&Value::String("x".repeat(100)), CborEncoding::CLIENT);
    let mut many = Vec::new();
    for _ in 0..50 {
        many.extend_from_slice(&long);
    }
    let text = diagnostic(&many, 500).expect("valid");
    assert!(text.ends_with("… (cut at 500 characters)"), "{text}");
    assert!(text.len() < 800);
    let error = diagnostic(&[0x82, 0x01], 100).expect_err("truncated");
    assert_eq!(error.to_string(), decode_cbor(&[0x82, 0x01]).expect_err("truncated").to_string());
    assert!(diagnostic(&[0xff], 100).expect_err("break").to_string().contains("break"));
}
use crate::codec::json::decode_json;
use crate::testdata::shared_file;

fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap_or("00"), 16).unwrap_or(0))
        .collect()
}

#[track_caller]
fn check(input: &str, expect: Result<&str, &str>) {
    let got = decode_cbor(&hex(input)).map(|v| v.to_json()).map_err(|e| e.to_string());
    assert_eq!(got.as_deref().map_err(String::as_str), expect);
}

#[test]
fn the_self_described_tag_is_unwrapped_and_byte_string_keys_are_text() {
    check("d9d9f7 a1 41 61 42 6869", Ok(r#"{"a":"hi"}"#));
    check("a1 61 61 d9d9f7 a1 61 62 01", Ok(r#"{"a":{"b":1}}"#));
}

#[test]
fn text_strings_are_accepted_too() {
    check("a2 61 61 62 6869 41 62 f6", Ok(r#"{"a":"hi","b":null}"#));
}

#[test]
fn tag_22_carries_raw_bytes_shown_as_base64() {
    let value = decode_cbor(&hex("a1 41 64 d6 43 000102")).expect("valid");
    assert_eq!(value.get("d"), Some(&Value::Bytes(vec![0, 1, 2])));
    assert_eq!(value.to_json(), r#"{"d":"AAEC"}"#);
    check("d6 61 61", Err("invalid CBOR: expected a byte string inside tag 22, found a text string at byte 1"));
}

#[test]
fn float16_floats_stay_floats() {
    let value = decode_cbor(&hex("83 f9 3c00 f9 3e00 fa 3fc00000")).expect("valid");
    assert_eq!(value, Value::Array(vec![Value::Float(1.0), Value::Float(1.5), Value::Float(1.5)]));
}

#[test]
fn integers_span_int64_and_nothing_beyond() {
    check("82 1b 7fffffffffffffff 3b 7fffffffffffffff", Ok("[9223372036854775807,-9223372036854775808]"));
    check(
        "1b 8000000000000000",
        Err("invalid CBOR: expected an integer within int64, found 9223372036854775808 at byte 0"),
    );
    check(
        "3b 8000000000000000",
        Err("invalid CBOR: expected an integer within int64, found -9223372036854775809 at byte 0"),
    );
    check("c2 41 01", Err("invalid CBOR: expected an integer within int64, found a bignum (tag 2) at byte 0"));
    check("c3 41 01", Err("invalid CBOR: expected an integer within int64, found a bignum (tag 3) at byte 0"));
}

#[test]
fn nan_infinity_undefined_and_other_tags_are_refused() {
    check("f9 7e00", Err("invalid CBOR: expected a finite float, found NaN at byte 0"));
    check("f9 7c00", Err("invalid CBOR: expected a finite float, found inf at byte 0"));
    check("f7", Err("invalid CBOR: expected false, true or null, found undefined at byte 0"));
    check("f8 ff", Err("invalid CBOR: expected false, true or null, found simple value 255 at byte 0"));
    check("c1 1a 5f000000", Err("invalid CBOR: expected a supported tag (55799 or 22), found tag 1 at byte 0"));
}

#[test]
fn duplicate_keys_are_refused_whatever_their_string_type() {
    check("a2 41 61 01 61 61 02", Err(r#"invalid CBOR: expected unique map keys, found key "a" again at byte 4"#));
}

#[test]
fn map_keys_must_be_strings() {
    check("a1 01 02", Err("invalid CBOR: expected a byte or text string map key, found the integer 1 at byte 1"));
}

#[test]
fn invalid_utf8_in_byte_strings_becomes_one_replacement_per_byte() {
    check("43 e282 41", Ok("\"\u{fffd}\u{fffd}A\""));
    assert_eq!(go_lossy_utf8(vec![b'a', 0xff, b'b', 0xe2]), "a\u{fffd}b\u{fffd}");
    check(
        "62 c328",
        Err("invalid CBOR: expected valid UTF-8 in a text string, found an invalid byte sequence at byte 1"),
    );
}

#[test]
fn indefinite_lengths_are_accepted() {
    check("bf 5f 41 61 41 62 ff 9f 01 ff ff", Ok(r#"{"ab":[1]}"#));
    check("5f 61 61 ff", Err("invalid CBOR: expected a definite chunk of the indefinite string at byte 0, or a break, found a text string at byte 1"));
}

#[test]
fn a_length_claiming_gigabytes_is_an_end_of_input_error_not_an_allocation() {
    let error = decode_cbor(&hex("5b 0000000100000000 41")).expect_err("truncated");
    assert!(error.is_end_of_input(), "{error}");
    assert_eq!(error.expected.to_string(), "4294967296 bytes of string data");
    let error = decode_cbor(&hex("9b 00000000ffffffff 01")).expect_err("truncated");
    assert!(error.is_end_of_input());
    let error = decode_cbor(&hex("bb 00000000ffffffff 41 61 01")).expect_err("truncated");
    assert!(error.is_end_of_input());
}

#[test]
fn nesting_is_bounded() {
    let mut deep = vec![0x81; MAX_DEPTH + 5];
    deep.push(0x01);
    let error = decode_cbor(&deep).expect_err("too deep");
    assert_eq!(error.offset, MAX_DEPTH);
    let mut tags: Vec<u8> = SELF_DESCRIBED_PREFIX.repeat(MAX_DEPTH + 1);
    tags.push(0x01);
    let error = decode_cbor(&tags).expect_err("too many tags");
    assert!(error.to_string().contains("self-described tags in a row"), "{error}");
}

#[test]
fn a_value_nested_to_the_limit_decodes_in_the_server_form_too() {
    // Found by the cbor fuzz target: the server form's 55799 tag must not cost a level.
    let mut deep = vec![0x81; MAX_DEPTH];
    deep.push(0x01);
    let value = decode_cbor(&deep).expect("at the limit");
    let server = encode_cbor(&value, CborEncoding::SERVER);
    assert_eq!(decode_cbor(&server).expect("server form at the limit"), value);
}

#[test]
fn truncated_items_and_trailing_bytes_are_errors() {
    check("a1 41", Err("invalid CBOR: expected 1 bytes of string data, found end of input at byte 2"));
    check("01 02", Err("invalid CBOR: expected end of input, found byte 0x02 at byte 1"));
    check("", Err("invalid CBOR: expected a CBOR data item, found end of input at byte 0"));
    check("1c", Err("invalid CBOR: expected a well-formed CBOR item head, found byte 0x1c at byte 0"));
    check("ff", Err("invalid CBOR: expected a data item, found a break (0xff) at byte 0"));
}

#[test]
fn a_prefix_decode_reports_the_bytes_used() {
    let (value, used) = decode_cbor_prefix(&hex("01 02")).expect("valid");
    assert_eq!((value, used), (Value::Int(1), 1));
}

#[test]
fn every_vector_decodes_to_the_tree_of_its_json_form() {
    for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
        let cbor =
            decode_cbor(&shared_file(&format!("kube/vectors/{name}.cbor"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = decode_json(&shared_file(&format!("kube/vectors/{name}.json"))).expect("json");
        assert!(cbor.equivalent(&json), "{name}");
    }
    for name in ["foobar_create_201", "podlist_kube-system", "status_invalid_422", "table_namespaces_aks"] {
        let cbor =
            decode_cbor(&shared_file(&format!("kube/cbor/{name}.cbor"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = decode_json(&shared_file(&format!("kube/cbor/{name}.source.json"))).expect("json");
        assert!(cbor.equivalent(&json), "{name}");
    }
}

#[test]
fn the_configmap_vector_keeps_its_binary_data_as_bytes() {
    let value = decode_cbor(&shared_file("kube/vectors/configmap.cbor")).expect("valid");
    let binary = value.get("binaryData").and_then(Value::as_object).expect("binaryData");
    assert!(binary.iter().all(|(_, v)| matches!(v, Value::Bytes(_))));
}

#[test]
fn the_server_form_reproduces_the_real_server_bytes_in_wire_order() {
    for name in ["pod", "podlist", "configmap", "table", "status-410-expired"] {
        let bytes = shared_file(&format!("kube/vectors/{name}.cbor"));
        let value = decode_cbor(&bytes).expect("valid");
        assert_eq!(encode_cbor(&value, CborEncoding::SERVER), bytes, "{name}");
    }
}

#[test]
fn the_client_form_reproduces_client_go_apply_bytes() {
    let bytes = shared_file("kube/vectors/apply-pod.cbor");
    let value = decode_cbor(&bytes).expect("valid");
    assert_eq!(encode_cbor(&value, CborEncoding::CLIENT), bytes);
}

#[test]
fn encoding_round_trips_and_uses_the_shortest_float() {
    let value = Value::Array(vec![Value::Float(1.5), Value::Int(-1), Value::Bytes(vec![7]), Value::Bool(false)]);
    let bytes = encode_cbor(&value, CborEncoding::CLIENT);
    assert_eq!(bytes, hex("84 f9 3e00 20 d6 41 07 f4"));
    assert_eq!(decode_cbor(&bytes), Ok(value));
    let text = CborEncoding { strings: StringType::Text, ..CborEncoding::CLIENT };
    assert_eq!(encode_cbor(&Value::String("a".into()), text), hex("61 61"));
}

#[test]
fn serde_json_values_encode_to_the_same_bytes_as_their_library_tree() {
    let mut documents: Vec<serde_json::Value> = ["pod", "podlist", "configmap", "table", "status-410-expired"]
        .iter()
        .map(|name| {
            let value = decode_cbor(&shared_file(&format!("kube/vectors/{name}.cbor"))).expect("valid");
            serde_json::from_str(&value.to_json()).expect("json")
        })
        .collect();
    documents.push(serde_json::json!({
        "numbers": [0, 1, 23, 24, 255, 256, 65536, -1, -24, -25, i64::MIN, i64::MAX, u64::MAX, 1.5, 0.1, -2.5e-300, 1e300],
        "empty": {}, "none": [], "null": null, "flags": [true, false],
        "text": "caf\u{e9} \u{2028} <&>", "nested": {"b": {"c": {"d": [{"e": {}}, {"f": "g", "a": 1}]}}, "a": 2},
    }));
    documents.push(serde_json::json!("a lone string"));
    let text = CborEncoding { strings: StringType::Text, ..CborEncoding::CLIENT };
    let encodings = [
        CborEncoding::SERVER,
        CborEncoding::CLIENT,
        text,
        CborEncoding::SERVER.shuffled(1),
        CborEncoding::SERVER.shuffled(0x5eed_1234_abcd),
        text.shuffled(7),
    ];
    for (d, json) in documents.iter().enumerate() {
        let tree = Value::from_serde_json(json);
        for encoding in encodings {
            let mut out = b"prefix".to_vec();
            encode_cbor_json(json, encoding, &mut out);
            assert_eq!(&out[..6], b"prefix");
            assert_eq!(out[6..], encode_cbor(&tree, encoding), "document {d} in {encoding:?}");
        }
    }
}

#[test]
fn shuffled_keys_change_the_order_but_not_the_tree() {
    let value = decode_cbor(&shared_file("kube/vectors/pod.cbor")).expect("valid");
    let a = encode_cbor(&value, CborEncoding::SERVER.shuffled(1));
    let b = encode_cbor(&value, CborEncoding::SERVER.shuffled(2));
    assert_ne!(a, b);
    assert_eq!(a, encode_cbor(&value, CborEncoding::SERVER.shuffled(1)));
    assert!(a.starts_with(&SELF_DESCRIBED_PREFIX));
    assert!(decode_cbor(&a).expect("valid").equivalent(&value));
    assert!(decode_cbor(&b).expect("valid").equivalent(&value));
}

#[test]
fn a_document_written_piece_by_piece_is_the_document() {
    let pod = serde_json::json!({"metadata": {"name": "a", "labels": {"x": "1", "y": "2"}}, "spec": {"n": [1, 2.5]}});
    for encoding in [CborEncoding::SERVER, CborEncoding::CLIENT, CborEncoding::SERVER.shuffled(9)] {
        let mut writer = CborWriter::new(encoding);
        let mut members = ["kind", "items", "count"];
        writer.order(&mut members);
        writer.map(members.len());
        for member in members {
            writer.text(member);
            match member {
                "kind" => writer.text("PodList"),
                "items" => {
                    writer.array(2);
                    writer.json(&pod);
                    writer.value(&Value::Bytes(b"\x00\x01".to_vec()));
                }
                _ => writer.value(&Value::Int(-3)),
            }
        }
        let bytes = writer.finish();
        assert_eq!(bytes.starts_with(&SELF_DESCRIBED_PREFIX), encoding.self_described);
        let read = decode_cbor(&bytes).expect("well-formed");
        assert!(read.get("kind").and_then(Value::as_str) == Some("PodList"), "{read:?}");
        let items = read.get("items").and_then(Value::as_array).expect("items");
        assert!(items[0].equivalent(&Value::from_serde_json(&pod)));
        assert_eq!(items[1], Value::Bytes(b"\x00\x01".to_vec()));
        assert_eq!(read.get("count"), Some(&Value::Int(-3)));
        if encoding == CborEncoding::SERVER {
            assert_eq!(members, ["kind", "items", "count"], "the wire order is kept");
        }
    }
}

#[test]
fn stepping_over_an_item_deferring_its_keys_agrees_with_the_full_rules_but_for_repeated_keys() {
    let step = |input: &[u8], deferring: bool| {
        let mut reader = Reader::new(input);
        let stepped = if deferring { reader.skip_deferring_keys(0) } else { reader.skip_item(0) };
        stepped.map(|()| reader.pos)
    };
    let mut inputs = Vec::new();
    for file in ["kube/vectors/pod.cbor", "kube/vectors/podlist.cbor", "kube/cbor/podlist_kube-system.cbor"] {
        let bytes = shared_file(file);
        for at in (0..bytes.len()).step_by(7).take(150) {
            for replacement in [0x00, 0x18, 0x5f, 0x7f, 0x9f, 0xbf, 0xa1, 0x41, 0xc2, 0xf7, 0xfb, 0xff] {
                let mut mutated = bytes.clone();
                mutated[at] = replacement;
                inputs.push(mutated);
            }
            inputs.push(bytes[..at].to_vec());
        }
        inputs.push(bytes);
    }
    inputs.push(vec![0xa2, 0x41, b'a', 0x01, 0x41, b'a', 0x02]);
    let mut agreed = 0;
    for input in &inputs {
        match (step(input, false), step(input, true)) {
            (Ok(full), Ok(deferring)) => {
                assert_eq!(full, deferring, "{input:02x?}");
                agreed += 1;
            }
            (Err(full), Ok(_)) => {
                assert!(full.to_string().contains("unique map keys"), "only repeated keys are deferred: {full}")
            }
            (Ok(_), Err(deferring)) => panic!("refused what the rules allow: {deferring}"),
            (Err(_), Err(_)) => agreed += 1,
        }
    }
    assert!(agreed > inputs.len() / 2, "the mutations were mostly decided alike: {agreed} of {}", inputs.len());
    let repeated = [0xa2, 0x41, b'a', 0x01, 0x41, b'a', 0x02];
    assert!(step(&repeated, false).is_err());
    assert_eq!(step(&repeated, true), Ok(repeated.len()));
}
