use super::*;
use kube_wire::schema::OpenApiSchemas;
use kube_wire::testdata::{gvk, shared_schemas};

fn deployment() -> SchemaTree {
    SchemaTree::build(shared_schemas(), &gvk("apps", "v1", "Deployment")).expect("tree")
}

fn widget() -> SchemaTree {
    let text = kube_wire::testdata::repository_file("sim/data/openapi-v3-apis-example.com-v1.json");
    let schemas = OpenApiSchemas::from_json(text.as_bytes()).expect("document");
    SchemaTree::build(&schemas, &gvk("example.com", "v1", "Widget")).expect("widget tree")
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  strategy:
    type: RollingUpdate
  template:
    spec:
      containers:
      - name: web
        image: nginx
        ports:
        - containerPort: 80
";

/// `text` with `|` marking the cursor: the text without it and the cursor's byte offset.
fn at_cursor(marked: &str) -> (String, usize) {
    let cursor = marked.find('|').expect("a | marks the cursor");
    (marked.replacen('|', "", 1), cursor)
}

/// `DEPLOYMENT` with `line` (the cursor marked with `|`) inserted after its line `after` (1-based).
fn deployment_with(after: usize, line: &str) -> (String, usize) {
    let mut lines: Vec<&str> = DEPLOYMENT.lines().collect();
    lines.insert(after, line);
    at_cursor(&(lines.join("\n") + "\n"))
}

/// The place's typing as (parent or field pointer, prefix, the text the range covers).
#[track_caller]
fn check_place(text: &str, cursor: usize, expect: Option<(&str, &str, &str)>) {
    let got = cursor_place(text, cursor).map(|p| {
        let (kind, segments) = match &p.typing {
            Typing::Key { parent, .. } => ("key of ", parent.clone()),
            Typing::Value { field, .. } => ("value of ", field.clone()),
        };
        (format!("{kind}/{}", segments.join("/")), p.prefix.clone(), text[p.range.clone()].to_string())
    });
    let expect = expect.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
    assert_eq!(got, expect, "{text}");
}

/// The labels offered at the marked cursor, or why none.
fn offered(tree: &SchemaTree, text: &str, cursor: usize) -> Result<Vec<String>, NoCandidates> {
    let place = cursor_place(text, cursor).expect("a place");
    candidates(tree, &place).map(|c| c.into_iter().map(|c| c.label).collect())
}

#[test]
fn a_key_typed_in_a_list_item_belongs_to_the_item() {
    // A new item of containers: its parent is the new item, and nothing is present in it.
    let (text, cursor) = deployment_with(17, "      - na|");
    check_place(&text, cursor, Some(("key of /spec/template/spec/containers/1", "na", "na")));
    let got = offered(&deployment(), &text, cursor).expect("candidates");
    // Required first, then by name; those that only contain the prefix after those that start with it.
    assert_eq!(got[0], "name");
    assert!(got.contains(&"readinessProbe".to_string()) || got.contains(&"terminationMessagePath".to_string()));
    assert!(got.iter().skip(1).all(|l| !l.starts_with("na")), "{got:?}");
    // In the first item, next to `name`: the item's other keys are there already.
    let (text, cursor) = deployment_with(15, "        im|");
    check_place(&text, cursor, Some(("key of /spec/template/spec/containers/0", "im", "im")));
    assert_eq!(offered(&deployment(), &text, cursor).expect("candidates"), ["imagePullPolicy"]);
}

#[test]
fn a_cursor_on_an_empty_line_after_an_indented_block_completes_at_its_indentation() {
    // After the ports item, at the container's indentation: the container's fields not present.
    let (text, cursor) = at_cursor(&format!("{DEPLOYMENT}        |\n"));
    check_place(&text, cursor, Some(("key of /spec/template/spec/containers/0", "", "")));
    let got = offered(&deployment(), &text, cursor).expect("candidates");
    assert!(
        !got.contains(&"name".to_string())
            && !got.contains(&"image".to_string())
            && !got.contains(&"ports".to_string())
    );
    assert!(got.contains(&"imagePullPolicy".to_string()) && got.contains(&"resources".to_string()));
    // At the list's `-` column the list has ended: the pod spec's fields.
    let (text, cursor) = at_cursor(&format!("{DEPLOYMENT}      |"));
    check_place(&text, cursor, Some(("key of /spec/template/spec", "", "")));
    assert!(offered(&deployment(), &text, cursor).expect("fields").contains(&"restartPolicy".to_string()));
    // At column 0, the object's own fields: only status is left.
    let (text, cursor) = at_cursor(&format!("{DEPLOYMENT}|"));
    check_place(&text, cursor, Some(("key of /", "", "")));
    assert_eq!(offered(&deployment(), &text, cursor).expect("fields"), ["status"]);
    // Deeper than a port item's keys: the port's fields.
    let (text, cursor) = at_cursor(&format!("{DEPLOYMENT}          pro|"));
    check_place(&text, cursor, Some(("key of /spec/template/spec/containers/0/ports/0", "pro", "pro")));
    assert_eq!(offered(&deployment(), &text, cursor).expect("fields"), ["protocol"]);
}

#[test]
fn nested_maps_complete_their_own_fields_and_insert_their_shape() {
    let (text, cursor) = deployment_with(10, "    rolling|");
    check_place(&text, cursor, Some(("key of /spec/strategy", "rolling", "rolling")));
    let place = cursor_place(&text, cursor).expect("place");
    let got = candidates(&deployment(), &place).expect("candidates");
    assert_eq!(got.len(), 1);
    // An object: the next line indented from the key.
    assert_eq!((got[0].label.as_str(), got[0].insert.as_str()), ("rollingUpdate", "rollingUpdate:\n      "));
    assert_eq!(
        (got[0].type_label.as_str(), got[0].field.as_str()),
        ("RollingUpdateDeployment", "spec.strategy.rollingUpdate")
    );
    // A scalar: `name: `; a list: its first item's `- ` at the key's column.
    let (text, cursor) = deployment_with(8, "  minReady|");
    let got = candidates(&deployment(), &cursor_place(&text, cursor).expect("place")).expect("candidates");
    assert_eq!(got[0].insert, "minReadySeconds: ");
    let (text, cursor) = deployment_with(15, "        env|");
    let got = candidates(&deployment(), &cursor_place(&text, cursor).expect("place")).expect("candidates");
    assert_eq!((got[0].label.as_str(), got[0].insert.as_str()), ("env", "env:\n        - "));
    // A word followed by its colon already: only the name is replaced, and the word is replaced whole.
    let (text, cursor) = deployment_with(8, "  rep|xx: 3");
    check_place(&text, cursor, Some(("key of /spec", "rep", "repxx")));
    // `replicas` is on another line, so it is not offered again.
    assert_eq!(offered(&deployment(), &text, cursor), Err(NoCandidates::NoMatch { prefix: "rep".into() }));
    let (text, cursor) = deployment_with(8, "  pau|sed: true");
    let got = candidates(&deployment(), &cursor_place(&text, cursor).expect("place")).expect("candidates");
    assert_eq!(got[0].insert, "paused");
}

#[test]
fn values_come_from_the_enum_the_description_or_the_boolean() {
    // The built-in kinds' documents have no enum: the description's "One of ..." is offered.
    let (text, cursor) = deployment_with(15, "        imagePullPolicy: If|");
    check_place(&text, cursor, Some(("value of /spec/template/spec/containers/0/imagePullPolicy", "If", "If")));
    let got = candidates(&deployment(), &cursor_place(&text, cursor).expect("place")).expect("values");
    assert_eq!(
        got.iter().map(|c| (c.insert.as_str(), c.from_description)).collect::<Vec<_>>(),
        [("IfNotPresent", true)]
    );
    // Right after the colon, a space comes first.
    let (text, cursor) = deployment_with(15, "        imagePullPolicy:|");
    let got = candidates(&deployment(), &cursor_place(&text, cursor).expect("place")).expect("values");
    assert_eq!(got.iter().map(|c| c.insert.as_str()).collect::<Vec<_>>(), [" Always", " Never", " IfNotPresent"]);
    let (text, cursor) = deployment_with(8, "  paused: |");
    assert_eq!(offered(&deployment(), &text, cursor).expect("booleans"), ["true", "false"]);
    let (text, cursor) = deployment_with(8, "  minReadySeconds: |");
    assert_eq!(
        offered(&deployment(), &text, cursor),
        Err(NoCandidates::NoValues { field: "spec.minReadySeconds".into() })
    );
    // A custom resource's enum, in a list item's field too.
    let widget_text = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  size: m|\n  ports:\n  - name: http\n";
    let (text, cursor) = at_cursor(widget_text);
    let got = candidates(&widget(), &cursor_place(&text, cursor).expect("place")).expect("enum");
    // Those starting with what is typed first, then those only containing it.
    assert_eq!(
        got.iter().map(|c| (c.insert.as_str(), c.from_description)).collect::<Vec<_>>(),
        [("medium", false), ("small", false)]
    );
    let (text, cursor) = at_cursor("apiVersion: example.com/v1\nkind: Widget\nspec:\n  size: small\n  |\n");
    assert_eq!(offered(&widget(), &text, cursor).expect("fields"), ["color", "ports", "replicas", "tags"]);
    let (text, cursor) =
        at_cursor("apiVersion: example.com/v1\nkind: Widget\nspec:\n  ports:\n  - name: http\n    |\n");
    assert_eq!(offered(&widget(), &text, cursor).expect("fields"), ["port"]);
}

#[test]
fn maps_lists_scalars_and_unknown_places_say_why_nothing_is_offered() {
    let tree = deployment();
    let (text, cursor) = deployment_with(6, "    |");
    assert_eq!(offered(&tree, &text, cursor), Err(NoCandidates::FreeKeys { map: "metadata.labels".into() }));
    let (text, cursor) = deployment_with(13, "        |");
    assert_eq!(
        offered(&tree, &text, cursor),
        Err(NoCandidates::ListItems { list: "spec.template.spec.containers".into() })
    );
    let (text, cursor) = deployment_with(8, "  bogus:\n    |");
    assert_eq!(
        offered(&tree, &text, cursor),
        Err(NoCandidates::NotInSchema(NotInSchema::Unknown { parent: "spec".into(), name: "bogus".into() }))
    );
    let (text, cursor) = deployment_with(8, "  replicas:\n    |");
    assert_eq!(offered(&tree, &text, cursor), Err(NoCandidates::Scalar { field: "spec.replicas".into() }));
    let (text, cursor) = at_cursor("apiVersion: apps/v1\nkind: Deployment\nmetadata: {}\nspec: {}\nstatus: {}\n|");
    assert_eq!(offered(&tree, &text, cursor), Err(NoCandidates::AllPresent { object: String::new() }));
}

#[test]
fn comments_flow_values_and_block_scalars_are_not_completed() {
    let none = |marked: &str| {
        let (text, cursor) = at_cursor(marked);
        check_place(&text, cursor, None);
    };
    // JSON members that do not start their line, and a string in a list, are not places either.
    none("{\"spec\": {\"re|\n}}");
    none("{\n  \"spec\": {\"replicas\": 1, \"pa|\n  }\n}");
    none("{\n  \"spec\": {\n    \"finalizers\": [\n      \"a|\n    ]\n  }\n}");
    none("{\n  \"spec\": {\n    \"paused\": true false|\n  }\n}");
    none("spec:\n  # repl|\n");
    none("spec:\n  replicas: [1, |\n");
    none("spec:\n  note: >\n    some te|xt\n");
    none("spec:\n  note: >\n    word|\n");
    none("spec:\n  \"quoted|\n");
    none("spec:\n  two words|\n");
    // Offsets outside the text or inside a character are not places either.
    let text = "é: 1";
    assert_eq!(cursor_place(text, 1), None);
    assert_eq!(cursor_place(text, 99), None);
}

const DEPLOYMENT_JSON: &str = r#"{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "spec": {
    "replicas": 2,
    "template": {
      "spec": {
        "containers": [
          {
            "name": "web",
            "image": "nginx"
          }
        ]
      }
    }
  }
}
"#;

/// `DEPLOYMENT_JSON` with `from` (its first occurrence) replaced by `to`, where `|` marks the cursor.
fn json_with(from: &str, to: &str) -> (String, usize) {
    assert!(DEPLOYMENT_JSON.contains(from), "{from}");
    at_cursor(&DEPLOYMENT_JSON.replacen(from, to, 1))
}

/// The inserts offered at the marked cursor.
#[track_caller]
fn inserts(tree: &SchemaTree, text: &str, cursor: usize) -> Vec<String> {
    let place = cursor_place(text, cursor).expect("a place");
    candidates(tree, &place).expect("candidates").into_iter().map(|c| c.insert).collect()
}

#[test]
fn json_written_one_member_per_line_completes_quoted_keys_and_values() {
    let tree = deployment();
    // A key begun after the container's last member: the item's fields not present, quoted.
    let (text, cursor) = json_with("\"image\": \"nginx\"", "\"image\": \"nginx\",\n            \"im|");
    check_place(&text, cursor, Some(("key of /spec/template/spec/containers/0", "im", "\"im")));
    assert_eq!(inserts(&tree, &text, cursor), ["\"imagePullPolicy\": "]);
    // An object or a list opens its bracket.
    let (text, cursor) = json_with("\"replicas\": 2,", "\"replicas\": 2,\n    \"strat|");
    assert_eq!(inserts(&tree, &text, cursor), ["\"strategy\": {"]);
    let (text, cursor) = json_with("\"name\": \"web\",", "\"name\": \"web\",\n            \"vol|");
    assert_eq!(inserts(&tree, &text, cursor), ["\"volumeDevices\": [", "\"volumeMounts\": ["]);
    // Inside a key that has its closing quote and colon: the quoted name is replaced whole.
    let (text, cursor) = json_with("\"replicas\"", "\"rep|licas\"");
    check_place(&text, cursor, Some(("key of /spec", "rep", "\"replicas\"")));
    assert_eq!(inserts(&tree, &text, cursor), ["\"replicas\""]);
    // A value: the string enum the description names, quoted, replacing the quoted word.
    let (text, cursor) =
        json_with("\"image\": \"nginx\"", "\"image\": \"nginx\",\n            \"imagePullPolicy\": \"If|\"");
    check_place(&text, cursor, Some(("value of /spec/template/spec/containers/0/imagePullPolicy", "If", "\"If\"")));
    assert_eq!(inserts(&tree, &text, cursor), ["\"IfNotPresent\""]);
    // Right after the colon a space comes first; booleans stay bare; a comma after is kept.
    let (text, cursor) = json_with("\"image\": \"nginx\"", "\"image\": \"nginx\",\n            \"imagePullPolicy\":|");
    assert_eq!(inserts(&tree, &text, cursor), [" \"Always\"", " \"Never\"", " \"IfNotPresent\""]);
    let (text, cursor) = json_with("\"replicas\": 2,", "\"replicas\": 2,\n    \"paused\": t|,");
    check_place(&text, cursor, Some(("value of /spec/paused", "t", "t")));
    assert_eq!(inserts(&tree, &text, cursor), ["true"]);
    // A key of the object itself: what it lacks.
    let (text, cursor) = json_with("\"kind\": \"Deployment\",", "\"kind\": \"Deployment\",\n  \"|");
    check_place(&text, cursor, Some(("key of /", "", "\"")));
    assert_eq!(offered(&tree, &text, cursor).expect("fields"), ["metadata", "status"]);
}

#[test]
fn the_member_at_the_cursor_is_its_lines_and_descriptions_read_in_words() {
    let (text, cursor) = at_cursor(&DEPLOYMENT.replace("image: nginx", "image: ng|inx"));
    assert_eq!(
        member_at(&text, cursor),
        Some(["spec", "template", "spec", "containers", "0", "image"].map(String::from).to_vec())
    );
    assert_eq!(member_at("a: 1\n\nb: 2", 5), None);
    assert_eq!(member_at("a: 1", 99), Some(vec!["a".to_string()]));
    assert_eq!(first_paragraph("Number of pods.\nDefaults to 1.\n\nMore info: x"), "Number of pods. Defaults to 1.");
    assert_eq!(
        described_values("Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always."),
        ["Always", "Never", "IfNotPresent"]
    );
    assert!(described_values("One of the containers of the pod.").is_empty());
    assert!(described_values("Anything at all").is_empty());
}

#[test]
fn string_values_that_would_read_as_something_else_are_quoted() {
    let document = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {"com.example.v1.Gadget": {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gadget"}],
        "properties": {"mode": {"type": "string", "enum": ["on", "1.5", "plain", ""]}}
    }}}});
    let schemas = OpenApiSchemas::from_json(document.to_string().as_bytes()).expect("document");
    let tree = SchemaTree::build(&schemas, &gvk("example.com", "v1", "Gadget")).expect("tree");
    let (text, cursor) = at_cursor("mode: |");
    let got = candidates(&tree, &cursor_place(&text, cursor).expect("place")).expect("values");
    assert_eq!(got.iter().map(|c| c.insert.as_str()).collect::<Vec<_>>(), ["\"on\"", "\"1.5\"", "plain", "\"\""]);
}

#[test]
fn textarea_offsets_convert_between_utf16_units_and_bytes() {
    let text = "a: é𝄞\nb";
    assert_eq!(byte_offset(text, 3), 3);
    assert_eq!(byte_offset(text, 4), 5);
    // 𝄞 is two UTF-16 units and four bytes.
    assert_eq!(byte_offset(text, 6), 9);
    assert_eq!(byte_offset(text, 99), text.len());
    assert_eq!(utf16_offset(text, 9), 6);
    assert_eq!(utf16_offset(text, 6), 4);
    assert_eq!(utf16_offset(text, 99), 8);
}

#[test]
fn a_list_item_is_completed_from_the_enum_of_the_lists_items() {
    let document = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {"com.example.v1.Gadget": {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gadget"}],
        "properties": {
            "modes": {"type": "array", "items": {"type": "string", "enum": ["read", "write", "on"]}},
            "names": {"type": "array", "items": {"type": "string"}}
        }
    }}}});
    let schemas = OpenApiSchemas::from_json(document.to_string().as_bytes()).expect("document");
    let tree = SchemaTree::build(&schemas, &gvk("example.com", "v1", "Gadget")).expect("tree");
    assert_eq!(tree.field("modes").expect("modes").item_enum_values, ["read", "write", "on"]);
    // A new item, begun: the values starting with what is typed, then those containing it.
    let (text, cursor) = at_cursor("modes:\n- read\n- r|\n");
    check_place(&text, cursor, Some(("key of /modes/1", "r", "r")));
    assert_eq!(inserts(&tree, &text, cursor), ["read", "write"]);
    // Nothing typed yet: every value, the one YAML would read as a boolean quoted.
    let (text, cursor) = at_cursor("modes:\n- |\n");
    assert_eq!(inserts(&tree, &text, cursor), ["read", "write", "\"on\""]);
    // Items without an enum have nothing to offer.
    let (text, cursor) = at_cursor("names:\n- |\n");
    assert_eq!(offered(&tree, &text, cursor), Err(NoCandidates::Scalar { field: "names".into() }));
}
