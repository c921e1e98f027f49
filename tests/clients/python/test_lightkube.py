"""lightkube 0.21.0 against kube-sim, scenario for scenario after lightkube's own e2e suite.

lightkube's suite (`e2e-tests/test_client.py` of gtsystem/lightkube at its 0.21.0 release, 22
tests) is in no registry package: the 0.21.0 sdist and wheel on PyPI hold `src/lightkube` only. So
this file, written for this project, drives the pinned lightkube from PyPI through each of those
tests' steps and checks what each of them checks, one test here per test there, under the same
names (docs/clients.md). The pods' images and commands are the suite's; kube-sim runs no image, so
what needs the image's own behaviour is in tests/clients/skip.tsv with the reason.
"""

import itertools
import random
import string
import time

import pytest
from lightkube import ApiError, AsyncClient, Client
from lightkube.generic_resource import (
    async_load_in_cluster_generic_resources,
    create_namespaced_resource,
    get_generic_resource,
    load_in_cluster_generic_resources,
)
from lightkube.models.core_v1 import Container, EnvVar, PodSpec, ServicePort, ServiceSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.apiextensions_v1 import CustomResourceDefinition
from lightkube.resources.apps_v1 import Deployment
from lightkube.resources.core_v1 import ConfigMap, Namespace, Node, Pod, Service
from lightkube.types import PatchType

_serial = itertools.count(1)


@pytest.fixture
def name() -> str:
    """A name no other test of the run uses."""
    return f"lk-{time.strftime('%H%M%S')}-{next(_serial)}"


def busybox_pod(pod_name: str, script: str) -> Pod:
    """A busybox pod whose one container `main` runs `/bin/sh -c SCRIPT` (as arguments)."""
    main = Container(name="main", image="busybox", args=["/bin/sh", "-c", script])
    return Pod(metadata=ObjectMeta(name=pod_name, labels={"app-name": pod_name}),
               spec=PodSpec(containers=[main], terminationGracePeriodSeconds=1))


def two_container_pod(pod_name: str) -> Pod:
    """Containers `main` and `sidecar` sleeping, each with TARGET_CONTAINER set to its name."""
    containers = [Container(name=c, image="busybox", command=["/bin/sh", "-c", "sleep 300"],
                            env=[EnvVar(name="TARGET_CONTAINER", value=c)]) for c in ("main", "sidecar")]
    return Pod(metadata=ObjectMeta(name=pod_name, labels={"app-name": pod_name}),
               spec=PodSpec(containers=containers, terminationGracePeriodSeconds=1))


def crontab_crd(prefix: str = "") -> CustomResourceDefinition:
    """The suite's CronTab definition (stable.example.com/v1, namespaced, short name ct), its
    names prefixed with PREFIX."""
    group, plural, singular, kind = (f"{prefix}{w}" for w in ("stable.example.com", "crontabs", "crontab", "CronTab"))
    fields = {"cronSpec": {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"}}
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": fields}}}
    return CustomResourceDefinition.from_dict({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": singular, "kind": kind, "shortNames": [f"{prefix}ct"]},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    })


def names_of(objects) -> list:
    return [o.metadata.name for o in objects]


def test_pod_apis(name):
    client = Client()
    system_pods = names_of(client.list(Pod, namespace="kube-system"))
    assert system_pods
    assert any(n.startswith("metrics-server") for n in system_pods)
    pod = client.create(busybox_pod(name, "while true;do echo 'this is a test';sleep 5; done"))
    try:
        assert (pod.metadata.name, pod.metadata.namespace) == (name, client.namespace)
        assert pod.status.phase
        for _, seen in client.watch(Pod, labels={"app-name": name}, resource_version=pod.metadata.resourceVersion):
            if seen.status.phase != "Pending":
                break
        first_line = next(iter(client.log(name, follow=True)))
        assert first_line == "this is a test\n"
    finally:
        client.delete(Pod, name)


def test_pod_not_exist():
    with pytest.raises(ApiError) as raised:
        Client().get(Pod, name="this-pod-is-not-found")
    status = raised.value.status
    assert (status.code, status.reason, status.status) == (404, "NotFound", "Failure")
    assert status.details.name == "this-pod-is-not-found"


def test_pod_already_exist(name):
    client = Client()
    client.create(busybox_pod(name, "sleep 5"))
    try:
        with pytest.raises(ApiError) as raised:
            client.create(busybox_pod(name, "sleep 5"))
        status = raised.value.status
        assert (status.code, status.reason, status.status) == (409, "AlreadyExists", "Failure")
    finally:
        client.delete(Pod, name)


def test_global_methods():
    client = Client()
    first = names_of(client.list(Node))[0]
    node = client.get(Node, name=first)
    assert node.metadata.name == first
    assert node.metadata.labels["kubernetes.io/os"] == node.status.nodeInfo.operatingSystem


def test_namespaced_methods(name):
    client = Client()
    made = client.create(ConfigMap(metadata=ObjectMeta(name=name, namespace="default"),
                                   data={"key1": "value1", "key2": "value2"}))
    try:
        assert made.metadata.name == name and made.data == {"key1": "value1", "key2": "value2"}
        made.data["key1"] = "new value"
        replaced = client.replace(made)
        assert replaced.data == {"key1": "new value", "key2": "value2"}
        patched = client.patch(ConfigMap, name=name, obj={"metadata": {"labels": {"app": "xyz"}}})
        assert patched.metadata.labels["app"] == "xyz"
        assert client.get(ConfigMap, name=name).metadata.creationTimestamp == patched.metadata.creationTimestamp
        assert name in names_of(client.list(ConfigMap))
    finally:
        client.delete(ConfigMap, name=name)


def test_patching(name):
    client = Client()
    client.create(Service(metadata=ObjectMeta(name=name), spec=ServiceSpec(
        ports=[ServicePort(name="a", port=80, targetPort=8080)], selector={"app": "not-existing"})))
    try:
        # Strategic merge: ports merge by their key, `port`.
        service = client.patch(Service, name=name, obj={"spec": {"ports": [{"name": "b", "port": 81, "targetPort": 8081}]}})
        assert {p.name for p in service.spec.ports} == {"a", "b"}
        service = client.patch(Service, name=name, obj=Service(spec=ServiceSpec(
            ports=[ServicePort(name="b", port=81, targetPort=8082)])))
        assert len(service.spec.ports) == 2
        assert [p.targetPort for p in service.spec.ports if p.port == 81] == [8082]
        # Merge patch replaces the list; JSON patch appends to it.
        service = client.patch(Service, name=name, patch_type=PatchType.MERGE,
                               obj={"spec": {"ports": [{"name": "b", "port": 81, "targetPort": 8081}]}})
        assert [p.port for p in service.spec.ports] == [81]
        service = client.patch(Service, name=name, patch_type=PatchType.JSON, obj=[
            {"op": "add", "path": "/spec/ports/-", "value": {"name": "a", "port": 80, "targetPort": 8080}}])
        assert [p.port for p in service.spec.ports] == [81, 80]
    finally:
        client.delete(Service, name=name)


def test_apply(name):
    client = Client(field_manager="lightkube")
    config = ConfigMap(apiVersion="v1", kind="ConfigMap", metadata=ObjectMeta(name=name, namespace="default"),
                       data={"key1": "value1", "key2": "value2"})
    applied = client.apply(config)
    try:
        assert applied.metadata.name == name and applied.data == {"key1": "value1", "key2": "value2"}
        config.data = {"key2": "new value", "key3": "value3"}
        assert client.apply(config).data == {"key2": "new value", "key3": "value3"}
        config.data = {}
        assert not client.apply(config).data
        config.data["key1"] = "new value"
        patched = client.patch(ConfigMap, name, config.to_dict(), patch_type=PatchType.APPLY)
        assert patched.data["key1"] == "new value"
    finally:
        client.delete(ConfigMap, name=name)


def test_deletecollection(name):
    client = Client()
    client.create(Namespace(metadata=ObjectMeta(name=name)))
    try:
        for map_name in (name, f"{name}-2"):
            client.create(ConfigMap(metadata=ObjectMeta(name=map_name, namespace=name), data={"key1": "value1"}))
        assert {name, f"{name}-2"} <= set(names_of(client.list(ConfigMap, namespace=name)))
        client.deletecollection(ConfigMap, namespace=name)
        assert not {name, f"{name}-2"} & set(names_of(client.list(ConfigMap, namespace=name)))
    finally:
        client.delete(Namespace, name=name)


def test_list_all_ns(name):
    client = Client()
    spaces = (name, f"{name}-2")
    for space in spaces:
        client.create(Namespace(metadata=ObjectMeta(name=space)))
    try:
        for space in spaces:
            client.create(ConfigMap(metadata=ObjectMeta(name=name), data={"key1": "value1"}), namespace=space)
        seen = {f"{c.metadata.namespace}/{c.metadata.name}" for c in client.list(ConfigMap, namespace="*")}
        assert {f"{space}/{name}" for space in spaces} <= seen
    finally:
        for space in spaces:
            client.delete(Namespace, name=space)


def test_crd():
    client = Client()
    crd = crontab_crd()
    CronTab = create_namespaced_resource(group="stable.example.com", version="v1", kind="CronTab",
                                         plural="crontabs", verbs=None)
    client.create(crd)
    client.wait(CustomResourceDefinition, name=crd.metadata.name, for_conditions=["Established"])
    try:
        client.create(CronTab(metadata={"name": "my-cron"}, spec={"cronSpec": "* * * * */5", "image": "my-awesome-cron-image"}))
        got = client.get(CronTab, name="my-cron")
        assert got.metadata.name == "my-cron" and got.spec["cronSpec"] == "* * * * */5"
    finally:
        client.delete(CustomResourceDefinition, name=crd.metadata.name)


@pytest.mark.parametrize("resource", [Node])
def test_wait_global(resource):
    client = Client()
    for obj in client.list(resource):
        client.wait(resource, obj.metadata.name, for_conditions=["Ready"])


@pytest.mark.asyncio
@pytest.mark.parametrize("resource", [Node])
async def test_wait_global_async(resource):
    client = AsyncClient()
    try:
        async for obj in client.list(resource):
            await client.wait(resource, obj.metadata.name, for_conditions=["Ready"])
    finally:
        await client.close()


NGINX = {"containers": [{"name": "nginx", "image": "nginx:1.21.4"}]}
WAITS = [
    (Pod, "Ready", NGINX),
    (Deployment, "Available", {"selector": {"matchLabels": {"foo": "bar"}},
                               "template": {"metadata": {"labels": {"foo": "bar"}}, "spec": NGINX}}),
]


@pytest.mark.parametrize("resource,for_condition,spec", WAITS)
def test_wait_namespaced(resource, for_condition, spec):
    client = Client()
    made = client.create(resource.from_dict({"metadata": {"generateName": "e2e-test-"}, "spec": spec}))
    client.wait(resource, made.metadata.name, for_conditions=[for_condition])
    client.delete(resource, made.metadata.name)


@pytest.mark.asyncio
@pytest.mark.parametrize("resource,for_condition,spec", WAITS)
async def test_wait_namespaced_async(resource, for_condition, spec):
    client = AsyncClient()
    try:
        made = await client.create(resource.from_dict({"metadata": {"generateName": "e2e-test-"}, "spec": spec}))
        await client.wait(resource, made.metadata.name, for_conditions=[for_condition])
        await client.delete(resource, made.metadata.name)
    finally:
        await client.close()


@pytest.fixture
def sample_crd():
    """The CronTab definition under a random prefix, Established; deleted afterwards."""
    client = Client()
    crd = crontab_crd("".join(random.choices(string.ascii_lowercase, k=5)))
    client.create(crd)
    client.wait(CustomResourceDefinition, name=crd.metadata.name, for_conditions=["Established"])
    yield crd
    client.delete(CustomResourceDefinition, name=crd.metadata.name)


def _generic(crd):
    return get_generic_resource(f"{crd.spec.group}/{crd.spec.versions[0].name}", crd.spec.names.kind)


def test_load_in_cluster_generic_resources(sample_crd):
    assert _generic(sample_crd) is None
    load_in_cluster_generic_resources(Client())
    assert _generic(sample_crd) is not None


@pytest.mark.asyncio
async def test_load_in_cluster_generic_resources_async(sample_crd):
    assert _generic(sample_crd) is None
    client = AsyncClient()
    try:
        await async_load_in_cluster_generic_resources(client)
    finally:
        await client.close()
    assert _generic(sample_crd) is not None


def _running(client: Client, pod: Pod) -> Pod:
    made = client.create(pod)
    client.wait(Pod, made.metadata.name, for_conditions=["Ready"])
    return made


def test_exec_integration_ls_and_cat():
    client = Client()
    pod = _running(client, busybox_pod("exec-busybox", "sleep 300"))
    try:
        listing = client.exec(pod.metadata.name, command=["/bin/sh", "-c", "ls /"], stdout=True, raise_on_error=True)
        assert "bin" in listing.stdout.split()
        cat = client.exec(pod.metadata.name, command=["/bin/cat"], stdin="hello from stdin\n", stdout=True,
                          raise_on_error=True)
        assert (cat.stdout, cat.exit_code) == ("hello from stdin\n", 0)
    finally:
        client.delete(Pod, pod.metadata.name)


def test_exec_integration_container_selection():
    client = Client()
    pod = _running(client, two_container_pod("exec-multi-container"))
    try:
        for container in ("main", "sidecar"):
            said = client.exec(pod.metadata.name, container=container, stdout=True, raise_on_error=True,
                               command=["/bin/sh", "-c", 'printf %s "$TARGET_CONTAINER"'])
            assert said.stdout == container
    finally:
        client.delete(Pod, pod.metadata.name)


@pytest.mark.asyncio
async def test_exec_integration_ls_and_cat_async():
    client = AsyncClient()
    try:
        pod = await client.create(busybox_pod("exec-busybox-async", "sleep 300"))
        try:
            await client.wait(Pod, pod.metadata.name, for_conditions=["Ready"])
            listing = await client.exec(pod.metadata.name, command=["/bin/sh", "-c", "ls /"], stdout=True,
                                        raise_on_error=True)
            assert "bin" in listing.stdout.split()
            cat = await client.exec(pod.metadata.name, command=["/bin/cat"], stdin="hello from stdin\n",
                                    stdout=True, raise_on_error=True)
            assert cat.stdout == "hello from stdin\n"
        finally:
            await client.delete(Pod, pod.metadata.name)
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_exec_integration_container_selection_async():
    client = AsyncClient()
    try:
        pod = await client.create(two_container_pod("exec-multi-container-async"))
        try:
            await client.wait(Pod, pod.metadata.name, for_conditions=["Ready"])
            for container in ("main", "sidecar"):
                said = await client.exec(pod.metadata.name, container=container, stdout=True, raise_on_error=True,
                                         command=["/bin/sh", "-c", 'printf %s "$TARGET_CONTAINER"'])
                assert said.stdout == container
        finally:
            await client.delete(Pod, pod.metadata.name)
    finally:
        await client.close()
