//! Validation while typing on a large object: a Deployment-like object of about 2,000 YAML lines
//! (a pod template with 62 containers, each with env, ports, probes and resources), checked
//! against kube-sim's apps/v1 OpenAPI document as the editor checks it after typing pauses
//! (read with repeated keys, validate, place on lines), beside the editor's own parse of the same
//! text, which runs on every keystroke. A benchmark reports figures; it asserts nothing.
//!
//! Run with `cargo bench -p kube-explorer-model --bench validate`. Native only (criterion does not build for wasm32).

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::fmt::Write;
    use std::hint::black_box;

    use criterion::Criterion;
    use kube_explorer_model::validation::check_edit;
    use kube_explorer_model::write::parse_edit;
    use kube_wire::schema::OpenApiSchemas;

    const CONTAINERS: usize = 62;

    /// A Deployment whose pod template has `CONTAINERS` containers, as block YAML.
    fn deployment() -> String {
        let mut text = String::from(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\n  namespace: demo\n  labels:\n    app: big\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: big\n  template:\n    metadata:\n      labels:\n        app: big\n    spec:\n      containers:\n",
        );
        for i in 0..CONTAINERS {
            let _ = write!(
                text,
                "      - name: c{i}\n        image: registry.example/app:{i}\n        imagePullPolicy: IfNotPresent\n        args:\n        - --port={port}\n        - --verbose\n        env:\n        - name: A{i}\n          value: \"{i}\"\n        - name: B{i}\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.name\n        ports:\n        - containerPort: {port}\n          name: http{i}\n          protocol: TCP\n        readinessProbe:\n          httpGet:\n            path: /ready\n            port: {port}\n          periodSeconds: 5\n        resources:\n          limits:\n            cpu: 500m\n            memory: 128Mi\n          requests:\n            cpu: 100m\n            memory: 64Mi\n        volumeMounts:\n        - name: data\n          mountPath: /data/{i}\n",
                port = 8000 + i
            );
        }
        text.push_str(
            "      volumes:\n      - name: data\n        emptyDir: {}\nstatus:\n  replicas: 3\n  readyReplicas: 3\n",
        );
        text
    }

    pub fn benches() {
        let text = kube_wire::testdata::repository_file("sim/data/openapi-v3-apis-apps-v1.json");
        let schemas = OpenApiSchemas::from_json(text.as_bytes()).expect("an OpenAPI document");
        let text = deployment();
        let with_problems = text.replacen("  replicas: 3\n", "  replicas: three\n  bogus: 1\n", 1);
        eprintln!(
            "Deployment of {} lines ({} KB); problems found in the edited copy: {}",
            text.lines().count(),
            text.len() / 1024,
            check_edit(&with_problems, &schemas).map(|p| p.len()).unwrap_or_default()
        );
        let mut c = Criterion::default().sample_size(20).configure_from_args();
        let mut group = c.benchmark_group("deployment-2000-lines");
        group.bench_function("editor parse (every keystroke)", |b| {
            b.iter(|| parse_edit(black_box(&text)).expect("parses"))
        });
        group.bench_function("check against the schema (after typing pauses)", |b| {
            b.iter(|| check_edit(black_box(&text), &schemas).expect("checked"))
        });
        group.bench_function("check with two problems", |b| {
            b.iter(|| check_edit(black_box(&with_problems), &schemas).expect("checked"))
        });
        group.finish();
    }
}
