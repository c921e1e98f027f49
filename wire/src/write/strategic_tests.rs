use super::*;
use crate::codec::json::decode_json;
use crate::codec::yaml::decode_yaml;
use crate::testdata::shared_file;
use crate::testdata::{gvk, shared_schemas};

fn json(text: &str) -> Value {
    decode_json(text.as_bytes()).expect("test JSON")
}

fn patcher(object: &Value) -> StrategicMerge<'static> {
    StrategicMerge::for_object(shared_schemas(), object).expect("built-in kind")
}

/// Builds the patch from `old` to `new`, compares it with `expect`, and applies it back.
#[track_caller]
fn check(old: &Value, new: &Value, expect: &Value) {
    let patcher = patcher(old);
    let patch = patcher.diff(old, new).expect("diff");
    assert!(patch.equivalent(expect), "patch {patch}\nexpected {expect}");
    let applied = patcher.apply(old, &patch).expect("apply");
    assert!(applied.equivalent(new), "applied {applied}\nexpected {new}");
}

fn pod(spec: &str) -> Value {
    json(&format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","finalizers":["a","b"]}},"spec":{spec}}}"#
    ))
}

#[test]
fn containers_merge_by_name_and_their_ports_by_container_port() {
    let old = pod(
        r#"{"containers":[{"name":"web","image":"nginx:1","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}]},{"name":"side","image":"busybox"}]}"#,
    );
    let new = pod(
        r#"{"containers":[{"name":"web","image":"nginx:2","ports":[{"containerPort":80,"protocol":"UDP"}]},{"name":"side","image":"busybox"}]}"#,
    );
    check(
        &old,
        &new,
        &json(
            r#"{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],"containers":[{"$setElementOrder/ports":[{"containerPort":80}],"image":"nginx:2","name":"web","ports":[{"containerPort":80,"protocol":"UDP"},{"$patch":"delete","containerPort":443}]}]}}"#,
        ),
    );
}

#[test]
fn a_removed_container_becomes_a_delete_directive_and_a_new_one_is_sent_whole() {
    let old = pod(r#"{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}"#);
    let new = pod(r#"{"containers":[{"name":"c","image":"z","args":["1"]},{"name":"a","image":"x"}]}"#);
    check(
        &old,
        &new,
        &json(
            r#"{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"}],"containers":[{"name":"c","image":"z","args":["1"]},{"$patch":"delete","name":"b"}]}}"#,
        ),
    );
}

#[test]
fn finalizers_are_a_merged_set_of_scalars() {
    let old = pod(r#"{"containers":[]}"#);
    let mut new = old.to_serde_json();
    new["metadata"]["finalizers"] = serde_json::json!(["b", "c"]);
    check(
        &old,
        &Value::from_serde_json(&new),
        &json(
            r#"{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"$setElementOrder/finalizers":["b","c"],"finalizers":["c"]}}"#,
        ),
    );
}

#[test]
fn volumes_merge_by_name_and_atomic_lists_are_replaced() {
    let old = pod(
        r#"{"volumes":[{"name":"v","emptyDir":{}},{"name":"w","emptyDir":{}}],"containers":[{"name":"a","args":["1","2"]}]}"#,
    );
    let new = pod(
        r#"{"volumes":[{"name":"v","configMap":{"name":"cm"}},{"name":"w","emptyDir":{}}],"containers":[{"name":"a","args":["2"]}]}"#,
    );
    check(
        &old,
        &new,
        &json(
            r#"{"spec":{"$setElementOrder/containers":[{"name":"a"}],"$setElementOrder/volumes":[{"name":"v"},{"name":"w"}],"containers":[{"args":["2"],"name":"a"}],"volumes":[{"configMap":{"name":"cm"},"emptyDir":null,"name":"v"}]}}"#,
        ),
    );
}

#[test]
fn a_deployment_template_merges_its_containers_and_retains_strategy_keys() {
    let old = json(
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"template":{"spec":{"containers":[{"name":"web","image":"a","env":[{"name":"X","value":"1"}]}]}}}}"#,
    );
    let new = json(
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":3,"strategy":{"type":"Recreate"},"template":{"spec":{"containers":[{"name":"web","image":"a","env":[{"name":"X","value":"2"},{"name":"Y","value":"3"}]}]}}}}"#,
    );
    check(
        &old,
        &new,
        &json(
            r#"{"spec":{"replicas":3,"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"},"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"$setElementOrder/env":[{"name":"X"},{"name":"Y"}],"env":[{"name":"X","value":"2"},{"name":"Y","value":"3"}],"name":"web"}]}}}}"#,
        ),
    );
}

#[test]
fn element_order_directives_can_be_left_out() {
    let old = pod(r#"{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}"#);
    let new = pod(r#"{"containers":[{"name":"a","image":"z"}]}"#);
    let patcher = patcher(&old).without_element_order();
    let patch = patcher.diff(&old, &new).expect("diff");
    assert!(
        patch.equivalent(&json(r#"{"spec":{"containers":[{"image":"z","name":"a"},{"$patch":"delete","name":"b"}]}}"#)),
        "{patch}"
    );
    assert!(patcher.apply(&old, &patch).expect("apply").equivalent(&new));
}

#[test]
fn equal_objects_give_an_empty_patch() {
    let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
    check(&pod, &pod, &json("{}"));
}

#[test]
fn a_real_pod_round_trips_through_a_strategic_patch() {
    let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
    let mut edited = pod.to_serde_json();
    edited["metadata"]["labels"]["tier"] = serde_json::json!("back");
    edited["metadata"]["finalizers"] = serde_json::json!(["example.com/x"]);
    edited["spec"]["containers"][0]["image"] = serde_json::json!("nginx:9");
    edited["spec"]["containers"][0]["env"] = serde_json::json!([{"name": "A", "value": "b"}]);
    let edited = Value::from_serde_json(&edited);
    let patcher = patcher(&pod);
    let patch = patcher.diff(&pod, &edited).expect("diff");
    assert!(patcher.apply(&pod, &patch).expect("apply").equivalent(&edited), "{patch}");
    assert!(patcher.apply(&edited, &patcher.diff(&edited, &pod).expect("diff")).expect("apply").equivalent(&pod));
}

#[test]
fn custom_resources_are_refused_with_the_reason_of_the_415() {
    let widget = json(r#"{"apiVersion":"example.com/v1","kind":"Widget"}"#);
    let error = StrategicMerge::for_object(shared_schemas(), &widget).expect_err("custom resource");
    assert_eq!(error, StrategicError::CustomResource("Widget.example.com/v1".into()));
    assert!(error.to_string().contains("415"), "{error}");
    let unknown = StrategicMerge::for_kind(shared_schemas(), &gvk("networking.k8s.io", "v1", "Ingress"));
    assert!(matches!(unknown, Err(StrategicError::UnknownKind(_))));
    assert!(matches!(
        StrategicMerge::for_object(shared_schemas(), &json("[]")),
        Err(StrategicError::NoKind(ValueKind::Array))
    ));
    assert!(is_built_in_group("apps") && is_built_in_group("") && is_built_in_group("rbac.authorization.k8s.io"));
    assert!(!is_built_in_group("example.com"));
}

#[test]
fn a_custom_resource_of_a_group_ending_in_k8s_io_is_refused_by_its_schema_name() {
    // The Gateway API's HTTPRoute, as kube-apiserver names a CRD's schema: its group reversed.
    let document = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {
        "io.k8s.networking.gateway.v1.HTTPRoute": {
            "type": "object",
            "x-kubernetes-group-version-kind": [
                {"group": "gateway.networking.k8s.io", "version": "v1", "kind": "HTTPRoute"}
            ],
            "properties": {"spec": {"type": "object"}}
        }
    }}});
    let schemas = OpenApiSchemas::from_json(document.to_string().as_bytes()).expect("document");
    let route = json(r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute"}"#);
    assert_eq!(
        StrategicMerge::for_object(&schemas, &route).expect_err("custom resource"),
        StrategicError::CustomResource("HTTPRoute.gateway.networking.k8s.io/v1".into())
    );
    // A built-in kind is patched: its schema is a Go type's.
    assert!(StrategicMerge::for_kind(shared_schemas(), &gvk("apps", "v1", "Deployment")).is_ok());
}

#[test]
fn applying_honours_replace_delete_and_retain_keys_directives() {
    let patcher = patcher(&pod("{}"));
    let original = pod(r#"{"containers":[{"name":"a","image":"x"},{"name":"b"}],"nodeSelector":{"k":"v","l":"w"}}"#);
    let patch = json(
        r#"{"spec":{"containers":[{"name":"z"},{"$patch":"replace"}],"nodeSelector":{"$patch":"replace","n":"m"}}}"#,
    );
    let applied = patcher.apply(&original, &patch).expect("apply");
    assert_eq!(applied.at(&["spec", "containers"]).map(Value::to_json).as_deref(), Some(r#"[{"name":"z"}]"#));
    assert_eq!(applied.at(&["spec", "nodeSelector"]).map(Value::to_json).as_deref(), Some(r#"{"n":"m"}"#));
    let bad = patcher.apply(&original, &json(r#"{"spec":{"$patch":"explode"}}"#));
    assert!(matches!(bad, Err(StrategicError::BadPatch { .. })));
    let no_key = patcher.apply(&original, &json(r#"{"spec":{"containers":[{"image":"q"}]}}"#));
    assert_eq!(
        no_key.map_err(|e| e.to_string()),
        Err("invalid strategic merge patch at spec.containers[0]: expected the merge key \"name\"".into())
    );
}

#[test]
fn a_list_of_objects_without_a_merge_key_is_refused() {
    let patcher = patcher(&pod("{}"));
    let bad = patcher.diff(&pod(r#"{"containers":[{"name":"a"}]}"#), &pod(r#"{"containers":[{"image":"b"}]}"#));
    assert_eq!(
        bad.map_err(|e| e.to_string()),
        Err("expected every item of spec.containers to have its merge key \"name\", found an item without it".into())
    );
}

#[test]
fn the_recorded_strategic_patch_gives_the_recorded_deployment_spec() {
    let recording =
        decode_json(&shared_file("kube/recordings/k8s-openapi-v1-34/patch-deployment.json")).expect("recording");
    let exchanges = recording.as_array().unwrap_or_default();
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let at = exchanges
        .iter()
        .position(|e| text(e, "request_content_type") == "application/strategic-merge-patch+json")
        .expect("a strategic patch");
    let before = decode_json(text(&exchanges[at - 1], "response_body").as_bytes()).expect("before");
    let after = decode_json(text(&exchanges[at], "response_body").as_bytes()).expect("after");
    let patch = decode_json(text(&exchanges[at], "request_body").as_bytes()).expect("patch");
    let patcher = patcher(&before);
    let patched = patcher.apply(&before, &patch).expect("apply");
    assert!(patched.get("spec").is_some_and(|s| after.get("spec").is_some_and(|a| a.equivalent(s))));
    let body = patcher.patch_body(&before, &after).expect("body");
    assert_eq!(body.content_type().to_string(), "application/strategic-merge-patch+json");
    assert!(patcher.apply(&before, &body.body).expect("apply ours").equivalent(&after));
}

/// A deterministic edit of a pod, chosen by `seed`: labels, images, containers added,
/// removed and reordered, ports and finalizers changed.
fn edit_pod(pod: &serde_json::Value, seed: u64) -> serde_json::Value {
    let mut pod = pod.clone();
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for step in 0..1 + next() % 3 {
        let n = format!("{seed}-{step}");
        let containers = pod["spec"]["containers"].as_array().map_or(0, Vec::len);
        match next() % 8 {
            0 => pod["metadata"]["labels"][format!("k{n}")] = serde_json::json!(n),
            1 => {
                if let Some(labels) = pod["metadata"]["labels"].as_object_mut() {
                    let key = labels.keys().nth(next() % labels.len().max(1)).cloned();
                    key.map(|k| labels.remove(&k));
                }
            }
            2 => pod["spec"]["containers"][0]["image"] = serde_json::json!(format!("img:{n}")),
            3 => {
                if let Some(list) = pod["spec"]["containers"].as_array_mut() {
                    let at = next() % (list.len() + 1);
                    list.insert(at, serde_json::json!({"name": format!("c{n}"), "image": "x", "args": [n]}));
                }
            }
            4 if containers > 1 => {
                if let Some(list) = pod["spec"]["containers"].as_array_mut() {
                    list.remove(next() % containers);
                }
            }
            5 => {
                if let Some(list) = pod["spec"]["containers"].as_array_mut() {
                    list.reverse();
                }
            }
            6 => match pod["metadata"]["finalizers"].as_array_mut() {
                Some(list) if !list.is_empty() && next() % 2 == 0 => {
                    list.remove(0);
                }
                Some(list) => list.push(serde_json::json!(format!("example.com/f{n}"))),
                None => pod["metadata"]["finalizers"] = serde_json::json!([format!("example.com/f{n}")]),
            },
            _ => {
                // `pointer_mut`, not indexing: indexing a missing key would insert a null.
                if let Some(ports) = pod.pointer_mut("/spec/containers/0/ports").and_then(|p| p.as_array_mut()) {
                    match ports.first_mut() {
                        Some(port) => port["containerPort"] = serde_json::json!(10000 + next() % 1000),
                        None => ports.push(serde_json::json!({"containerPort": 1})),
                    }
                }
            }
        }
    }
    pod
}

#[test]
fn hundreds_of_edits_of_a_real_pod_round_trip_through_every_patch_type() {
    use crate::write::patch::{apply_json_patch, apply_merge_patch, json_patch_ops, merge_patch, TestGuards};
    let pod = decode_json(&shared_file("kube/vectors/pod.json")).expect("pod");
    let patcher = patcher(&pod);
    let mut old = pod.to_serde_json();
    for seed in 0..300 {
        let new = edit_pod(&old, seed);
        let (before, after) = (Value::from_serde_json(&old), Value::from_serde_json(&new));
        let strategic = patcher.diff(&before, &after).expect("diff");
        assert!(patcher.apply(&before, &strategic).expect("apply").equivalent(&after), "seed {seed}: {strategic}");
        let guards = TestGuards { resource_version: true, old_values: true };
        let ops = json_patch_ops(&before, &after, guards);
        assert!(apply_json_patch(&before, &ops).expect("json patch").equivalent(&after), "seed {seed}");
        assert!(apply_merge_patch(&before, &merge_patch(&before, &after)).equivalent(&after), "seed {seed}");
        old = new;
    }
}

/// The object of a `kubectl edit` buffer (comment lines are YAML comments).
fn edit_buffer(case: &str, file: &str) -> Value {
    decode_yaml(&shared_file(&format!("kube/recordings/kubectl-edit/{case}/{file}"))).expect("edit buffer")
}

#[test]
fn the_patches_kubectl_edit_sent_are_the_ones_we_compute() {
    for (case, original, edited, request) in [
        ("testcase-single-service", "1.original", "1.edited", "2.request"),
        ("testcase-not-update-annotation", "1.original", "1.edited", "2.request"),
        ("testcase-edit-error-reedit", "1.original", "1.edited", "2.request"),
    ] {
        let (old, new) = (edit_buffer(case, original), edit_buffer(case, edited));
        let recorded =
            decode_json(&shared_file(&format!("kube/recordings/kubectl-edit/{case}/{request}"))).expect("request");
        let patcher = patcher(&old);
        let patch = patcher.diff(&old, &new).expect("diff");
        assert!(patch.equivalent(&recorded), "{case}: computed {patch}\nrecorded {recorded}");
        assert!(patcher.apply(&old, &recorded).expect("apply").equivalent(&new), "{case}");
    }
}

#[test]
fn the_list_edits_kubectl_sent_are_the_ones_we_compute_item_by_item() {
    for case in ["testcase-list", "testcase-list-record"] {
        let (old, new) = (edit_buffer(case, "2.original"), edit_buffer(case, "2.edited"));
        let pairs = old
            .get("items")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .zip(new.get("items").and_then(Value::as_array).unwrap_or_default());
        let mut patches = Vec::new();
        for (old, new) in pairs {
            let patch = patcher(old).diff(old, new).expect("diff");
            patches.push(patch);
        }
        for request in ["3.request", "4.request"] {
            let recorded =
                decode_json(&shared_file(&format!("kube/recordings/kubectl-edit/{case}/{request}"))).expect("request");
            assert!(
                patches.iter().any(|p| p.equivalent(&recorded)),
                "{case}/{request}: {recorded} not among {patches:?}"
            );
        }
    }
}

#[test]
fn every_patch_builder_gives_a_body_of_its_patch_type() {
    use crate::media_type::PatchType;
    use crate::write::patch::{
        apply_json_patch, apply_merge_patch, json_patch_ops, merge_patch, ops_from_value, PatchBody, TestGuards,
    };
    let (pod, edited) = crate::write::patch::tests::pod_and_edit();
    let strategic = patcher(&pod);
    for (body, content_type) in [
        (PatchBody::json_patch(&json_patch_ops(&pod, &edited, TestGuards::default())), "application/json-patch+json"),
        (PatchBody::merge(merge_patch(&pod, &edited)), "application/merge-patch+json"),
        (strategic.patch_body(&pod, &edited).expect("body"), "application/strategic-merge-patch+json"),
    ] {
        assert_eq!(body.content_type().to_string(), content_type);
        let applied = match body.patch_type {
            PatchType::Json => apply_json_patch(&pod, &ops_from_value(&body.body).expect("ops")).expect("applies"),
            PatchType::Merge => apply_merge_patch(&pod, &body.body),
            _ => strategic.apply(&pod, &body.body).expect("applies"),
        };
        assert!(applied.equivalent(&edited), "{content_type}");
    }
}

/// A schema of one built-in-named kind `Thing` (core group, v1) whose `spec` map is patched
/// whole (`x-kubernetes-patch-strategy: replace`): no shipped schema has that strategy.
fn replace_schemas() -> OpenApiSchemas {
    let document = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {
        "io.k8s.api.core.v1.Thing": {
            "type": "object",
            "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Thing"}],
            "properties": {"spec": {"type": "object", "x-kubernetes-patch-strategy": "replace"}}
        }
    }}});
    OpenApiSchemas::from_json(document.to_string().as_bytes()).expect("document")
}

#[test]
fn a_map_with_the_replace_strategy_is_sent_whole_and_only_when_it_changed() {
    let schemas = replace_schemas();
    let thing = |spec: &str| json(&format!(r#"{{"apiVersion":"v1","kind":"Thing","spec":{spec}}}"#));
    let (old, new) = (thing(r#"{"a":1,"b":2}"#), thing(r#"{"a":1,"c":3}"#));
    let patcher = StrategicMerge::for_object(&schemas, &old).expect("built-in name");
    let patch = patcher.diff(&old, &new).expect("diff");
    assert!(patch.equivalent(&json(r#"{"spec":{"$patch":"replace","a":1,"c":3}}"#)), "{patch}");
    assert!(patcher.apply(&old, &patch).expect("apply").equivalent(&new));
    let same = patcher.diff(&old, &thing(r#"{"b":2,"a":1}"#)).expect("diff");
    assert!(same.equivalent(&json("{}")), "{same}");
}

#[test]
fn a_scalar_list_grown_or_reordered_carries_its_element_order() {
    let old = pod(r#"{"containers":[]}"#);
    let mut grown = old.to_serde_json();
    grown["metadata"]["finalizers"] = serde_json::json!(["a", "b", "c"]);
    check(
        &old,
        &Value::from_serde_json(&grown),
        &json(r#"{"metadata":{"$setElementOrder/finalizers":["a","b","c"],"finalizers":["c"]}}"#),
    );
    let mut swapped = old.to_serde_json();
    swapped["metadata"]["finalizers"] = serde_json::json!(["b", "a"]);
    check(&old, &Value::from_serde_json(&swapped), &json(r#"{"metadata":{"$setElementOrder/finalizers":["b","a"]}}"#));
}

#[test]
fn a_merged_list_mixing_objects_and_scalars_is_refused_as_unmergeable() {
    let patcher = patcher(&pod("{}"));
    let error = patcher
        .diff(&pod(r#"{"containers":[{"name":"a"}]}"#), &pod(r#"{"containers":[{"name":"a"},"b"]}"#))
        .expect_err("mixed list");
    assert_eq!(error, StrategicError::UnmergeableList("spec.containers".into()));
}

#[test]
fn a_bad_directive_at_the_root_names_the_object() {
    let error = patcher(&pod("{}")).apply(&pod("{}"), &json(r#"{"$patch":"explode"}"#)).expect_err("bad");
    assert_eq!(error.to_string(), "invalid strategic merge patch at the object: unknown $patch directive \"explode\"");
}

#[test]
fn applying_a_delete_directive_empties_the_map() {
    let patcher = patcher(&pod("{}"));
    let original = pod(r#"{"nodeSelector":{"k":"v"},"hostname":"h"}"#);
    let applied = patcher.apply(&original, &json(r#"{"spec":{"nodeSelector":{"$patch":"delete"}}}"#)).expect("apply");
    assert_eq!(applied.at(&["spec"]).map(Value::to_json).as_deref(), Some(r#"{"nodeSelector":{},"hostname":"h"}"#));
}

#[test]
fn retain_keys_drops_the_members_it_does_not_name() {
    let deployment = |strategy: &str| {
        json(&format!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"d"}},"spec":{{"strategy":{strategy}}}}}"#
        ))
    };
    let old = deployment(r#"{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}"#);
    let patch = json(r#"{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}"#);
    let applied = patcher(&old).apply(&old, &patch).expect("apply");
    assert!(applied.equivalent(&deployment(r#"{"type":"Recreate"}"#)), "{applied}");
}

#[test]
fn a_member_new_to_the_object_is_patched_not_copied() {
    let patcher = patcher(&pod("{}"));
    let patch = json(
        r#"{"spec":{"nodeSelector":{"a":null,"b":"c"},"containers":[{"name":"x","image":"i","args":["1","1"]},{"$patch":"delete","name":"y"}]}}"#,
    );
    let applied = patcher.apply(&pod("{}"), &patch).expect("apply");
    assert_eq!(
        applied.at(&["spec"]).map(Value::to_json).as_deref(),
        Some(r#"{"nodeSelector":{"b":"c"},"containers":[{"name":"x","image":"i","args":["1","1"]}]}"#)
    );
}

#[test]
fn scalars_patched_into_a_list_merged_by_key_are_merged_as_a_set() {
    // As strategicpatch's mergeSlice does for elements that are not maps: appended, deduplicated.
    let applied = patcher(&pod("{}"))
        .apply(&pod(r#"{"containers":[]}"#), &json(r#"{"spec":{"containers":["x","x"]}}"#))
        .expect("apply");
    assert_eq!(applied.at(&["spec", "containers"]).map(Value::to_json).as_deref(), Some(r#"["x"]"#));
}
