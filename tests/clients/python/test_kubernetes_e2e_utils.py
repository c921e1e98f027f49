"""The official Python client's kubernetes.utils (create_from_yaml, create_from_dict,
create_from_directory, the metrics helpers) against kube-sim, after test_utils.py of its e2e suite
(kubernetes/e2e_test at v36.0.3, which no registry package ships; see test_kubernetes_e2e.py).

The suite reads manifests from its test_yaml folder; the manifests here are this project's, with
the names, kinds and fields its tests check. The two tests of its TestUtilsUnitTests class
(quantity parsing) ask no server and are left out. The 409 conflicts are compared byte for byte
with the Status the real server sends, as the suite compares them.
"""

import pytest
import yaml
from kubernetes import client, utils

from kae_clients import get_e2e_configuration

NAMESPACE = "e2e-test-utils"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-app
  labels: {app: nginx}
spec:
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.15.4", ports: [{containerPort: 80}]}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: myapp-pod, labels: {app: myapp}}
spec:
  containers:
  - {name: myapp-container, image: busybox, command: [sh, -c, "echo Hello Kubernetes! && sleep 3600"]}
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {name: my-service}
spec:
  selector: {app: MyApp}
  ports: [{protocol: TCP, port: 80, targetPort: 9376}]
"""
ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {namespace: default, name: pod-reader}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, watch, list]}
"""
API_SERVICE = """apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.wardle.k8s.io}
spec:
  group: wardle.k8s.io
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 15
  insecureSkipTLSVerify: true
  service: {name: api, namespace: wardle}
"""
MOCK_SERVICE = """apiVersion: v1
kind: Service
metadata: {name: mock, labels: {app: mock}}
spec:
  selector: {app: mock}
  ports: [{protocol: TCP, port: 99, targetPort: 9949}]
"""
MOCK_CONTROLLER = """apiVersion: v1
kind: ReplicationController
metadata: {name: mock}
spec:
  replicas: 1
  selector: {app: mock}
  template:
    metadata: {labels: {app: mock}}
    spec:
      containers:
      - {name: mock-container, image: "k8s.gcr.io/pause:2.0", ports: [{containerPort: 9949, protocol: TCP}]}
"""
PODS_AND_DEPLOYMENT = """apiVersion: v1
kind: PodList
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: mock-pod-0, labels: {app: mock-pod-0}}
  spec: {containers: [{name: mock-pod-0, image: busybox, command: [sh, -c, sleep 3600]}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: mock-pod-1, labels: {app: mock-pod-1}}
  spec: {containers: [{name: mock-pod-1, image: busybox, command: [sh, -c, sleep 3600]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mock, labels: {app: mock}}
spec:
  replicas: 3
  selector: {matchLabels: {app: mock}}
  template:
    metadata: {labels: {app: mock}}
    spec: {containers: [{name: mock, image: "k8s.gcr.io/pause:2.0"}]}
"""


def conflict(message: str, name: str, kind: str, group: str = "") -> str:
    """FailToCreateError's text for one 409: the real server's Status, compact, as the suite has it."""
    group_field = f'"group":"{group}",' if group else ""
    return ('Error from server (Conflict): {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
            f'"message":"{message}","reason":"AlreadyExists","details":{{"name":"{name}",{group_field}'
            f'"kind":"{kind}"}},"code":409}}\n')


@pytest.fixture(scope="module")
def k8s():
    """An ApiClient; the suite's namespace e2e-test-utils exists while the module runs."""
    api = client.ApiClient(configuration=get_e2e_configuration())
    core = client.CoreV1Api(api)
    core.create_namespace(body=client.V1Namespace(metadata=client.V1ObjectMeta(name=NAMESPACE)))
    yield api
    core.delete_namespace(name=NAMESPACE)


@pytest.fixture
def manifest(tmp_path):
    """Writes TEXT to a file NAME in a fresh folder and returns its path."""
    def write(text: str, name: str = "manifest.yaml") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


def check_nginx_app(dep, name="nginx-app"):
    container = dep.spec.template.spec.containers[0]
    assert (dep.metadata.name, dep.spec.replicas, dep.spec.template.metadata.labels["app"]) == (name, 3, "nginx")
    assert (container.name, container.image, container.ports[0].container_port) == ("nginx", "nginx:1.15.4", 80)


def test_create_apps_deployment_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(DEPLOYMENT))
    apps = client.AppsV1Api(k8s)
    check_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_with_apply_is_idempotent(k8s, manifest):
    apps = client.AppsV1Api(k8s)
    try:
        utils.create_from_yaml(k8s, manifest(DEPLOYMENT))
        check_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
        # apply=True: a server-side apply of the same manifest (field manager kubernetes-client).
        utils.create_from_yaml(k8s, manifest(DEPLOYMENT), apply=True)
        check_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    finally:
        apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_object(k8s):
    utils.create_from_yaml(k8s, yaml_objects=yaml.safe_load_all(DEPLOYMENT))
    apps = client.AppsV1Api(k8s)
    check_nginx_app(apps.read_namespaced_deployment(name="nginx-app", namespace="default"))
    apps.delete_namespaced_deployment(name="nginx-app", namespace="default", body={})


def test_create_apps_deployment_from_yaml_obj(k8s):
    body = yaml.safe_load(DEPLOYMENT)
    body["metadata"]["name"] = "nginx-app-3"
    utils.create_from_dict(k8s, body)
    apps = client.AppsV1Api(k8s)
    check_nginx_app(apps.read_namespaced_deployment(name="nginx-app-3", namespace="default"), "nginx-app-3")
    apps.delete_namespaced_deployment(name="nginx-app-3", namespace="default", body={})


def test_create_pod_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(POD))
    core = client.CoreV1Api(k8s)
    pod = core.read_namespaced_pod(name="myapp-pod", namespace="default")
    assert (pod.metadata.name, pod.spec.containers[0].image, pod.spec.containers[0].name) == (
        "myapp-pod", "busybox", "myapp-container")
    core.delete_namespaced_pod(name="myapp-pod", namespace="default", body={})


def test_create_service_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(SERVICE))
    core = client.CoreV1Api(k8s)
    service = core.read_namespaced_service(name="my-service", namespace="default")
    assert (service.metadata.name, service.spec.selector["app"]) == ("my-service", "MyApp")
    core.delete_namespaced_service(name="my-service", namespace="default", body={})


def test_create_namespace_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest("apiVersion: v1\nkind: Namespace\nmetadata: {name: development}\n"))
    core = client.CoreV1Api(k8s)
    assert core.read_namespace(name="development").metadata.name == "development"
    core.delete_namespace(name="development", body={})


def check_role(k8s, manifest, verbose):
    utils.create_from_yaml(k8s, manifest(ROLE), verbose=verbose)
    rbac = client.RbacAuthorizationV1Api(k8s)
    role = rbac.read_namespaced_role(name="pod-reader", namespace="default")
    assert (role.metadata.name, role.rules[0].resources[0]) == ("pod-reader", "pods")
    rbac.delete_namespaced_role(name="pod-reader", namespace="default", body={})


def test_create_rbac_role_from_yaml(k8s, manifest):
    check_role(k8s, manifest, verbose=False)


def test_create_rbac_role_from_yaml_with_verbose_enabled(k8s, manifest):
    check_role(k8s, manifest, verbose=True)


def test_create_deployment_non_default_namespace_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest("apiVersion: v1\nkind: Namespace\nmetadata: {name: dep}\n", "ns.yaml"))
    body = yaml.safe_load(DEPLOYMENT)
    body["metadata"].update(name="nginx-deployment", namespace="dep")
    utils.create_from_yaml(k8s, manifest(yaml.safe_dump(body), "dep.yaml"))
    core, apps = client.CoreV1Api(k8s), client.AppsV1Api(k8s)
    assert core.read_namespace(name="dep").metadata.name == "dep"
    assert apps.read_namespaced_deployment(name="nginx-deployment", namespace="dep") is not None
    apps.delete_namespaced_deployment(name="nginx-deployment", namespace="dep", body={})
    core.delete_namespace(name="dep", body={})


def test_create_apiservice_from_yaml_with_conflict(k8s, manifest):
    path = manifest(API_SERVICE)
    utils.create_from_yaml(k8s, path)
    registration = client.ApiregistrationV1Api(k8s)
    made = registration.read_api_service(name="v1alpha1.wardle.k8s.io")
    assert (made.metadata.name, made.spec.group, made.spec.version) == (
        "v1alpha1.wardle.k8s.io", "wardle.k8s.io", "v1alpha1")
    with pytest.raises(utils.FailToCreateError) as raised:
        utils.create_from_yaml(k8s, path)
    assert str(raised.value) == conflict('apiservices.apiregistration.k8s.io \\"v1alpha1.wardle.k8s.io\\" already exists',
                                         "v1alpha1.wardle.k8s.io", "apiservices", "apiregistration.k8s.io")
    registration.delete_api_service(name="v1alpha1.wardle.k8s.io", body={})


def test_create_general_list_from_yaml(k8s, manifest):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "list-service-test"},
               "spec": {"selector": {"app": "list-deployment-test"}, "ports": [{"port": 8080, "protocol": "TCP"}]}}
    deployment = yaml.safe_load(DEPLOYMENT)
    deployment["metadata"] = {"name": "list-deployment-test", "labels": {"app": "list-deployment-test"}}
    deployment["spec"].update(replicas=1, selector={"matchLabels": {"app": "list-deployment-test"}})
    deployment["spec"]["template"]["metadata"]["labels"] = {"app": "list-deployment-test"}
    utils.create_from_yaml(k8s, manifest(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [service, deployment]})))
    core, apps = client.CoreV1Api(k8s), client.AppsV1Api(k8s)
    made = core.read_namespaced_service(name="list-service-test", namespace="default")
    assert (made.metadata.name, made.spec.selector["app"]) == ("list-service-test", "list-deployment-test")
    dep = apps.read_namespaced_deployment(name="list-deployment-test", namespace="default")
    assert (dep.metadata.name, dep.spec.template.spec.containers[0].image, dep.spec.replicas) == (
        "list-deployment-test", "nginx:1.15.4", 1)
    core.delete_namespaced_service(name="list-service-test", namespace="default", body={})
    apps.delete_namespaced_deployment(name="list-deployment-test", namespace="default", body={})


def test_create_namespace_list_from_yaml(k8s, manifest):
    spaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n, "labels": {"name": n}}}
              for n in ("mock-1", "mock-2")]
    utils.create_from_yaml(k8s, manifest(yaml.safe_dump({"apiVersion": "v1", "kind": "NamespaceList", "items": spaces})))
    core = client.CoreV1Api(k8s)
    for name in ("mock-1", "mock-2"):
        space = core.read_namespace(name=name)
        assert (space.metadata.name, space.metadata.labels["name"]) == (name, name)
        core.delete_namespace(name=name, body={})


def test_create_implicit_service_list_from_yaml_with_conflict(k8s, manifest):
    # The items name no kind: a ServiceList's items are Services. mock-3 twice: one conflict.
    items = [{"metadata": {"name": n, "labels": {"app": n}},
              "spec": {"selector": {"app": n}, "ports": [{"port": 80, "protocol": "TCP"}]}}
             for n in ("mock-3", "mock-3", "mock-4")]
    body = {"apiVersion": "v1", "kind": "ServiceList", "items": items}
    with pytest.raises(utils.FailToCreateError):
        utils.create_from_yaml(k8s, manifest(yaml.safe_dump(body), "implicit-svclist.json"))
    core = client.CoreV1Api(k8s)
    for name in ("mock-3", "mock-4"):
        service = core.read_namespaced_service(name=name, namespace="default")
        assert (service.metadata.name, service.metadata.labels["app"]) == (name, name)
        core.delete_namespaced_service(name=name, namespace="default", body={})


def check_mock_pair(core):
    service = core.read_namespaced_service(name="mock", namespace="default")
    assert (service.metadata.name, service.metadata.labels["app"], service.spec.selector["app"]) == ("mock",) * 3
    controller = core.read_namespaced_replication_controller(name="mock", namespace="default")
    container = controller.spec.template.spec.containers[0]
    assert (controller.metadata.name, controller.spec.template.metadata.labels["app"], controller.spec.selector["app"]) == ("mock",) * 3
    assert (controller.spec.replicas, container.image, container.name) == (1, "k8s.gcr.io/pause:2.0", "mock-container")
    core.delete_namespaced_replication_controller(name="mock", namespace="default", propagation_policy="Background")
    core.delete_namespaced_service(name="mock", namespace="default", body={})


def test_create_multi_resource_from_directory(k8s, manifest):
    path = manifest(MOCK_SERVICE, "multi-resource-service.yaml")
    manifest(MOCK_CONTROLLER, "multi-resource-replication-controller.yaml")
    utils.create_from_directory(k8s, path.rsplit("/", 1)[0])
    check_mock_pair(client.CoreV1Api(k8s))


def test_create_from_multi_resource_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(MOCK_SERVICE + "---\n" + MOCK_CONTROLLER))
    check_mock_pair(client.CoreV1Api(k8s))


def check_pods_and_deployment(k8s, namespace, detail):
    core, apps = client.CoreV1Api(k8s), client.AppsV1Api(k8s)
    for name in ("mock-pod-0", "mock-pod-1"):
        pod = core.read_namespaced_pod(name=name, namespace=namespace)
        if detail:
            assert (pod.metadata.name, pod.metadata.labels["app"], pod.spec.containers[0].name) == (name,) * 3
            assert pod.spec.containers[0].image == "busybox"
    dep = apps.read_namespaced_deployment(name="mock", namespace=namespace)
    if detail:
        assert (dep.metadata.name, dep.spec.template.metadata.labels["app"], dep.spec.replicas) == ("mock", "mock", 3)
    for name in ("mock-pod-0", "mock-pod-1"):
        core.delete_namespaced_pod(name=name, namespace=namespace, body={})
    apps.delete_namespaced_deployment(name="mock", namespace=namespace, body={})


def test_create_from_list_in_multi_resource_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(PODS_AND_DEPLOYMENT))
    check_pods_and_deployment(k8s, "default", detail=True)


def test_create_from_multi_resource_yaml_with_conflict(k8s, manifest):
    service = MOCK_SERVICE.replace("mock", "mock-2")
    utils.create_from_yaml(k8s, manifest(service, "first.yaml"))
    core = client.CoreV1Api(k8s)
    made = core.read_namespaced_service(name="mock-2", namespace="default")
    assert (made.metadata.name, made.metadata.labels["app"], made.spec.selector["app"], made.spec.ports[0].port) == (
        "mock-2", "mock-2", "mock-2", 99)
    with pytest.raises(utils.FailToCreateError) as raised:
        utils.create_from_yaml(k8s, manifest(service + "---\n" + MOCK_CONTROLLER.replace("mock", "mock-2"), "multi.yaml"))
    assert str(raised.value) == conflict('services \\"mock-2\\" already exists', "mock-2", "services")
    assert core.read_namespaced_replication_controller(name="mock-2", namespace="default") is not None
    core.delete_namespaced_replication_controller(name="mock-2", namespace="default", propagation_policy="Background")
    core.delete_namespaced_service(name="mock-2", namespace="default", body={})


def test_create_from_multi_resource_yaml_with_multi_conflicts(k8s, manifest):
    triple = DEPLOYMENT.replace("nginx-app", "triple-nginx")
    with pytest.raises(utils.FailToCreateError) as raised:
        utils.create_from_yaml(k8s, manifest("---\n".join([triple] * 3)))
    assert str(raised.value) == 2 * conflict('deployments.apps \\"triple-nginx\\" already exists', "triple-nginx",
                                             "deployments", "apps")
    apps = client.AppsV1Api(k8s)
    assert apps.read_namespaced_deployment(name="triple-nginx", namespace="default") is not None
    apps.delete_namespaced_deployment(name="triple-nginx", namespace="default", body={})


def test_create_namespaced_apps_deployment_from_yaml(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(DEPLOYMENT), namespace=NAMESPACE)
    apps = client.AppsV1Api(k8s)
    assert apps.read_namespaced_deployment(name="nginx-app", namespace=NAMESPACE) is not None
    apps.delete_namespaced_deployment(name="nginx-app", namespace=NAMESPACE, body={})


def test_create_from_list_in_multi_resource_yaml_namespaced(k8s, manifest):
    utils.create_from_yaml(k8s, manifest(PODS_AND_DEPLOYMENT), namespace=NAMESPACE)
    check_pods_and_deployment(k8s, NAMESPACE, detail=False)


def test_metrics_utilities_integration(k8s, manifest):
    import time

    utils.create_from_yaml(k8s, manifest(POD), namespace=NAMESPACE)
    core = client.CoreV1Api(k8s)
    end = time.time() + 60
    while core.read_namespaced_pod("myapp-pod", NAMESPACE).status.phase != "Running":
        assert time.time() < end, "myapp-pod did not start"
        time.sleep(2)
    time.sleep(10)  # metrics-server's scrape interval, as the suite waits
    nodes = utils.get_nodes_metrics(k8s)
    assert nodes["items"] and "usage" in nodes["items"][0]
    assert "myapp-pod" in [i["metadata"]["name"] for i in utils.get_pods_metrics(k8s, NAMESPACE)["items"]]
    labelled = utils.get_pods_metrics(k8s, NAMESPACE, "app=myapp")["items"]
    assert [i["metadata"]["name"] for i in labelled] == ["myapp-pod"]
    both = utils.get_pods_metrics_in_all_namespaces(k8s, [NAMESPACE, "default"])
    assert NAMESPACE in both and "error" not in both[NAMESPACE]
    core.delete_namespaced_pod("myapp-pod", NAMESPACE, body={})
