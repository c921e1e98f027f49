"""The official Python client (kubernetes 36.0.3) against kube-sim, after its e2e suite.

The suite (`kubernetes/e2e_test` of kubernetes-client/python at v36.0.3, 43 tests) is in no
registry package: the 36.0.3 sdist and wheel on PyPI leave `kubernetes/e2e_test` out (their
setup.py lists the packages without it). This file, written for this project, drives the pinned
client from PyPI through the steps of those tests and checks what they check, one test here per
test there, under the same names. So far it covers the tests of test_client.py, test_apps.py,
test_batch.py and test_watch.py that use neither exec nor port-forward (docs/clients.md lists the
rest: the exec and port-forward tests, test_informer.py and test_utils.py's YAML files).
"""

import uuid

import pytest
import yaml
from kubernetes import watch
from kubernetes.client import api_client
from kubernetes.client.api import apps_v1_api, batch_v1_api, core_v1_api
from kubernetes.client.models import v1_delete_options

from kae_clients import get_e2e_configuration


def short_uuid() -> str:
    return str(uuid.uuid4())[-12:]


@pytest.fixture
def core():
    return core_v1_api.CoreV1Api(api_client.ApiClient(configuration=get_e2e_configuration()))


@pytest.fixture
def apps():
    return apps_v1_api.AppsV1Api(api_client.ApiClient(configuration=get_e2e_configuration()))


def test_service_apis(core):
    name = f"frontend-{short_uuid()}"
    port = {"name": "port", "port": 80, "protocol": "TCP", "targetPort": 80}
    manifest = {"apiVersion": "v1", "kind": "Service",
                "metadata": {"labels": {"name": name}, "name": name, "resourceversion": "v1"},
                "spec": {"ports": [port], "selector": {"name": name}}}
    made = core.create_namespaced_service(body=manifest, namespace="default")
    assert made.metadata.name == name and made.status
    read = core.read_namespaced_service(name=name, namespace="default")
    assert read.metadata.name == name and read.status
    # A strategic merge patch (the client's default for a dict body) adds the port by its key.
    manifest["spec"]["ports"] = [{"name": "new", "port": 8080, "protocol": "TCP", "targetPort": 8080}]
    patched = core.patch_namespaced_service(body=manifest, name=name, namespace="default")
    assert len(patched.spec.ports) == 2 and patched.status
    core.delete_namespaced_service(name=name, body={}, namespace="default")


def test_replication_controller_apis(core):
    name = f"frontend-{short_uuid()}"
    container = {"image": "nginx", "name": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]}
    manifest = {"apiVersion": "v1", "kind": "ReplicationController",
                "metadata": {"labels": {"name": name}, "name": name},
                "spec": {"replicas": 2, "selector": {"name": name},
                         "template": {"metadata": {"labels": {"name": name}}, "spec": {"containers": [container]}}}}
    made = core.create_namespaced_replication_controller(body=manifest, namespace="default")
    assert (made.metadata.name, made.spec.replicas) == (name, 2)
    read = core.read_namespaced_replication_controller(name=name, namespace="default")
    assert (read.metadata.name, read.spec.replicas) == (name, 2)
    core.delete_namespaced_replication_controller(name=name, namespace="default", propagation_policy="Background")


def test_configmap_apis(core):
    name = f"test-configmap-{short_uuid()}"
    body = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": name, "labels": {"e2e-tests": "true"}},
            "data": {"config.json": '{"command":"/usr/bin/mysqld_safe"}',
                     "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\nport = 3306\n"}}
    assert core.create_namespaced_config_map(body=body, namespace="default").metadata.name == name
    assert core.read_namespaced_config_map(name=name, namespace="default").metadata.name == name
    # A list body is a JSON patch; a dict body a strategic merge patch.
    replaced = core.patch_namespaced_config_map(name=name, namespace="default", body=[
        {"op": "replace", "path": "/data", "value": {"new_value": "json_patch_name"}}])
    assert replaced.data == {"new_value": "json_patch_name"}
    merged = core.patch_namespaced_config_map(name=name, namespace="default",
                                              body={"data": {"new_value": "merge_patch_name"}})
    assert merged.data == {"new_value": "merge_patch_name"}
    core.delete_namespaced_config_map(name=name, body={}, namespace="default")
    assert core.list_namespaced_config_map("default", pretty=True, label_selector="e2e-tests=true").items == []


def test_node_apis(core):
    for item in core.list_node().items:
        labels = core.read_node(name=item.metadata.name).metadata.labels
        assert isinstance(labels, dict) and labels


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.15.4
        ports:
        - containerPort: 80
"""


def test_create_deployment(apps):
    name = f"nginx-deployment-{uuid.uuid4()}"
    apps.create_namespaced_deployment(body=yaml.safe_load(DEPLOYMENT % name), namespace="default")
    read = apps.read_namespaced_deployment(name, "default")
    container = read.spec.template.spec.containers[0]
    assert (read.metadata.name, read.spec.replicas) == (name, 3)
    assert read.spec.selector.match_labels["app"] == read.spec.template.metadata.labels["app"] == "nginx"
    assert (container.name, container.image, container.ports[0].container_port) == ("nginx", "nginx:1.15.4", 80)
    apps.delete_namespaced_deployment(name, "default", body=v1_delete_options.V1DeleteOptions())


def test_create_daemonset(apps):
    name = f"nginx-app-{uuid.uuid4()}"
    template = {"metadata": {"labels": {"app": "nginx"}, "name": name},
                "spec": {"containers": [{"name": "nginx-app", "image": "nginx:1.15.4"}]}}
    body = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"labels": {"app": "nginx"}, "name": name},
            "spec": {"selector": {"matchLabels": {"app": "nginx"}}, "template": template,
                     "updateStrategy": {"type": "RollingUpdate"}}}
    apps.create_namespaced_daemon_set("default", body=body)
    read = apps.read_namespaced_daemon_set(name, "default")
    container = read.spec.template.spec.containers[0]
    assert read.metadata.name == name
    assert read.spec.selector.match_labels["app"] == read.spec.template.metadata.labels["app"] == "nginx"
    assert (container.name, container.image) == ("nginx-app", "nginx:1.15.4")
    apps.delete_namespaced_daemon_set(name, "default", body=v1_delete_options.V1DeleteOptions())


def test_job_apis():
    batch = batch_v1_api.BatchV1Api(api_client.ApiClient(configuration=get_e2e_configuration()))
    name = f"test-job-{uuid.uuid4()}"
    container = {"image": "busybox", "name": name, "command": ["sh", "-c", "sleep 5"]}
    body = {"kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"name": name},
                                  "spec": {"containers": [container], "restartPolicy": "Never"}}}}
    assert batch.create_namespaced_job(body=body, namespace="default").metadata.name == name
    read = batch.read_namespaced_job(name=name, namespace="default")
    spec = read.spec.template.spec
    assert read.metadata.name == name and spec.restart_policy == "Never"
    assert (spec.containers[0].name, spec.containers[0].image, spec.containers[0].command) == (
        name, "busybox", ["sh", "-c", "sleep 5"])
    batch.delete_namespaced_job(name=name, namespace="default", propagation_policy="Background")


def labelled_map(name: str, value: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"e2e-tests": "true"}},
            "data": {"key": value, "config": "dummy"}}


def test_watch_configmaps(core):
    first, second = f"configmap-a-{short_uuid()}", f"configmap-b-{short_uuid()}"
    core.create_namespaced_config_map(body=labelled_map(first, "a"), namespace="default")
    listed_at = core.list_namespaced_config_map("default", label_selector="e2e-tests=true").metadata.resource_version
    body = labelled_map(second, "b")
    core.create_namespaced_config_map(body=body, namespace="default")
    body["data"]["config"] = "{}"
    core.patch_namespaced_config_map(name=second, namespace="default", body=body)
    core.delete_collection_namespaced_config_map(namespace="default", label_selector="e2e-tests=true")
    # From the list's resourceVersion: the second map's ADDED and MODIFIED, then both DELETED.
    seen = [(e["type"], e["object"].metadata.name) for e in watch.Watch().stream(
        core.list_namespaced_config_map, namespace="default", resource_version=listed_at, timeout_seconds=5,
        label_selector="e2e-tests=true")]
    assert [t for t, _ in seen] == ["ADDED", "MODIFIED", "DELETED", "DELETED"]
    assert [n for _, n in seen[:2]] == [second, second]
