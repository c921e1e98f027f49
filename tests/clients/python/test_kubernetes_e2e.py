"""The official Python client (kubernetes 36.0.3) against kube-sim, after its e2e suite.

The suite (`kubernetes/e2e_test` of kubernetes-client/python at v36.0.3, 43 tests) is in no
registry package: the 36.0.3 sdist and wheel on PyPI leave `kubernetes/e2e_test` out (their
setup.py lists the packages without it). This file, written for this project, drives the pinned
client from PyPI through the steps of those tests and checks what they check, one test here per
test there, under the same names. So far it covers the tests of test_client.py, test_apps.py,
test_batch.py and test_watch.py that use neither exec nor port-forward (docs/clients.md lists the
rest: the exec and port-forward tests, test_informer.py and test_utils.py's YAML files).
"""

import gzip
import json
import select
import socket
import threading
import time
import urllib.request
import uuid

import pytest
import yaml
from kubernetes import watch
from kubernetes.client import api_client
from kubernetes.client.api import apps_v1_api, batch_v1_api, core_v1_api
from kubernetes.client.models import v1_delete_options
from kubernetes.client.rest import ApiException
from kubernetes.informer import ADDED, DELETED, MODIFIED, SharedInformer
from kubernetes.stream import portforward, stream
from kubernetes.stream.ws_client import ERROR_CHANNEL

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


# test_client.py: exec (the pod runs busybox; kube-sim's simulated shell stands in for it).


def busybox(name: str, script: str) -> dict:
    """A pod whose busybox container `sleep` runs `/bin/sh -c SCRIPT`."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"image": "busybox", "name": "sleep", "args": ["/bin/sh", "-c", script]}]}}


def running_pod(core, name: str, ready=lambda phase: phase == "Running", within=60) -> None:
    """Creates NAME's busybox pod and waits until READY(its phase) holds."""
    made = core.create_namespaced_pod(body=busybox(name, "while true;do date;sleep 5; done"), namespace="default")
    assert made.metadata.name == name and made.status.phase
    end = time.time() + within
    while not ready(core.read_namespaced_pod(name=name, namespace="default").status.phase):
        assert time.time() < end, f"pod {name} did not start"
        time.sleep(1)


def exit_status(session) -> dict:
    """The Status on the error channel once the process ended."""
    session.update(timeout=5)
    end = time.time() + 10
    while not (line := session.read_channel(ERROR_CHANNEL)):
        assert time.time() < end, "no Status on the error channel"
        time.sleep(0.5)
        session.update(timeout=1)
    return json.loads(line)


def interactive_shell(core, name: str, binary: bool) -> None:
    """echo to stdout, echo to stderr, exit: the lines on their channels, then Success."""
    text = (lambda s: s.encode()) if binary else (lambda s: s)
    shell = stream(core.connect_post_namespaced_pod_exec, name, "default", command="/bin/sh", stderr=True,
                   stdin=True, stdout=True, tty=False, binary=binary, _preload_content=False)
    shell.write_stdin(text("echo test string 1\n"))
    assert shell.readline_stdout(timeout=5) == text("test string 1")
    assert not shell.peek_stderr()
    shell.write_stdin(text("echo test string 2 >&2\n"))
    assert shell.readline_stderr(timeout=5) == text("test string 2")
    assert not shell.peek_stdout()
    shell.write_stdin(text("exit\n"))
    assert exit_status(shell)["status"] == "Success"
    shell.update(timeout=5)
    assert not shell.is_open()


def test_pod_apis(core):
    assert core.read_namespaced_service_account(name="default", namespace="default").metadata.name == "default"
    name = f"busybox-test-{short_uuid()}"
    running_pod(core, name, ready=lambda phase: phase != "Pending")
    dates = stream(core.connect_get_namespaced_pod_exec, name, "default", stderr=False, stdin=False, stdout=True,
                   tty=False, command=["/bin/sh", "-c", "for i in $(seq 1 3); do date; done"])
    assert isinstance(dates, str) and len(dates.splitlines()) == 3
    zipped = stream(core.connect_get_namespaced_pod_exec, name, "default", stderr=False, stdin=False, stdout=True,
                    tty=False, binary=True, command=["/bin/sh", "-c", 'echo -n "This is a test string" | gzip'])
    assert isinstance(zipped, bytes) and gzip.decompress(zipped).decode() == "This is a test string"
    uptime = stream(core.connect_post_namespaced_pod_exec, name, "default", command="uptime", stderr=False,
                    stdin=False, stdout=True, tty=False)
    assert len(uptime.splitlines()) == 1
    interactive_shell(core, name, binary=False)
    interactive_shell(core, name, binary=True)
    assert core.list_pod_for_all_namespaces().items
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_pod_exec_close_channel(core):
    name = f"busybox-test-{short_uuid()}"
    running_pod(core, name)
    try:
        cat = stream(core.connect_post_namespaced_pod_exec, name, "default", command=["/bin/sh", "-c", "cat"],
                     stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
        assert cat.subprotocol == "v5.channel.k8s.io"
        cat.write_stdin("test-close\n")
        assert cat.readline_stdout(timeout=5) == "test-close"
        # Closing stdin (v5's CLOSE of channel 0) ends cat, and with it the session.
        cat.close_channel(0)
        cat.run_forever(timeout=15)
        assert not cat.is_open() and cat.returncode == 0
    finally:
        core.delete_namespaced_pod(name=name, body={}, namespace="default")


def test_exit_code(core):
    name = f"busybox-test-{short_uuid()}"
    running_pod(core, name)
    for command, code in ((["false"], 1), (["/bin/sh", "-c", "sleep 1; exit 3"], 3), (["true"], 0),
                          (["/bin/sh", "-c", "ls /"], 0)):
        process = stream(core.connect_get_namespaced_pod_exec, name, "default", command=command, stderr=True,
                         stdin=False, stdout=True, tty=False, _preload_content=False)
        assert process.returncode is None
        process.run_forever(timeout=10)
        assert process.returncode == code, command
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


# An echo server on each port of its arguments (the suite mounts its own port_server.py so).
ECHO_SERVER = """
import select, socket, sys
listeners = []
for port in sys.argv[1:]:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("", int(port)))
    listener.listen()
    listeners.append(listener)
peers = []
while True:
    for ready in select.select(listeners + peers, [], [])[0]:
        if ready in listeners:
            peers.append(ready.accept()[0])
        elif data := ready.recv(1024):
            ready.sendall(data)
        else:
            peers.remove(ready)
            ready.close()
"""


def echoed(sock, sent: bytes) -> bytes:
    """Sends SENT through SOCK and reads until as much came back (or 60 s passed)."""
    sock.sendall(sent)
    reply = b""
    end = time.time() + 60
    while reply != sent and time.time() < end:
        if select.select([sock], [], [], 1)[0]:
            data = sock.recv(1024)
            assert data, "the forwarded socket closed"
            reply += data
    return reply


def test_portforward_raw(core):
    name = f"portforward-raw-{short_uuid()}"
    core.create_namespaced_config_map(body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                                            "data": {"port-server.py": ECHO_SERVER}}, namespace="default")
    container = {"name": "port-server", "image": "python", "command": ["python", "-u", "/opt/port-server.py", "1234", "1235"],
                 "volumeMounts": [{"name": "port-server", "mountPath": "/opt", "readOnly": True}],
                 "startupProbe": {"tcpSocket": {"port": 1235}, "periodSeconds": 1, "failureThreshold": 30}}
    core.create_namespaced_pod(body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                     "spec": {"containers": [container], "restartPolicy": "Never",
                                              "volumes": [{"name": "port-server", "configMap": {"name": name}}]}},
                               namespace="default")
    end = time.time() + 60
    while not ((pod := core.read_namespaced_pod(name=name, namespace="default")).status.phase == "Running"
               and pod.status.container_statuses[0].ready):
        assert time.time() < end and pod.status.phase in ("Pending", "Running")
        time.sleep(1)
    for round_ in range(1, 11):
        forward = portforward(core.connect_get_namespaced_pod_portforward, name, "default", ports="1234,1235,1236")
        assert forward.connected
        for port in (1234, 1235):
            sock = forward.socket(port)
            sock.setblocking(True)
            sent = f"Test {round_} port {port} forwarding".encode()
            assert echoed(sock, sent) == sent
        # Nothing listens on 1236: its socket closes and its error channel says why.
        closed = forward.socket(1236)
        closed.setblocking(True)
        assert closed.recv(1024) == b"" and forward.error(1236) is not None
        closed.close()
        for port in (1234, 1235):
            sock = forward.socket(port)
            sent = f"Another test {round_} using fileno {sock.fileno()}".encode()
            assert echoed(sock, sent) == sent
            sock.close()
        time.sleep(1)
        assert not forward.connected
        assert forward.error(1234) is None and forward.error(1235) is None
    core.delete_namespaced_pod(name=name, namespace="default")
    core.delete_namespaced_config_map(name=name, namespace="default")


def test_portforward_http(core):
    name = f"portforward-http-{short_uuid()}"
    core.create_namespaced_pod(body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                     "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}},
                               namespace="default")
    while core.read_namespaced_pod(name=name, namespace="default").status.phase == "Pending":
        time.sleep(1)
    plain = socket.create_connection

    def through_forward(address, *args, **kwargs):
        """POD.NAMESPACE.kubernetes:PORT is the pod's port, forwarded; anything else as usual."""
        host = address[0].decode() if isinstance(address[0], bytes) else address[0]
        parts = host.split(".")
        if len(parts) != 3 or parts[2] != "kubernetes":
            return plain(address, *args, **kwargs)
        forward = portforward(core.connect_get_namespaced_pod_portforward, parts[0], parts[1], ports=str(address[1]))
        return forward.socket(address[1])

    socket.create_connection = through_forward
    try:
        response = urllib.request.urlopen(f"http://{name}.default.kubernetes/")
        page = response.read().decode()
    finally:
        socket.create_connection = plain
    assert response.code == 200 and "<h1>Welcome to nginx!</h1>" in page
    core.delete_namespaced_pod(name=name, body={}, namespace="default")


# test_informer.py: kubernetes.informer.SharedInformer over ConfigMaps labelled inf-e2e=1.

WAIT = 30


def informer_map(name: str, data=None) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"inf-e2e": "1"}},
            "data": data or {"k": "v"}}


@pytest.fixture
def informer(core):
    """Makes started SharedInformers over default's inf-e2e=1 maps; stops them and deletes the maps."""
    made, maps = [], []

    def start(handlers=(), resync_period=None, before=()):
        for name in before:
            core.create_namespaced_config_map(body=informer_map(name), namespace="default")
            maps.append(name)
        options = {"resync_period": resync_period} if resync_period else {}
        watcher = SharedInformer(list_func=core.list_namespaced_config_map, namespace="default",
                                 label_selector="inf-e2e=1", **options)
        for event, handler in handlers:
            watcher.add_event_handler(event, handler)
        watcher.start()
        made.append(watcher)
        return watcher, maps

    yield start
    for watcher in made:
        watcher.stop()
    for name in maps:
        try:
            core.delete_namespaced_config_map(name=name, namespace="default")
        except ApiException:
            pass


def cached(watcher, name):
    """The cached map NAME once the informer has it (fails after WAIT seconds)."""
    end = time.monotonic() + WAIT
    while (found := watcher.cache.get_by_key(f"default/{name}")) is None:
        assert time.monotonic() < end, f"default/{name} never appeared in the cache"
        time.sleep(0.25)
    return found


def listed(watcher) -> None:
    end = time.monotonic() + WAIT
    while watcher._resource_version is None:
        assert time.monotonic() < end, "the initial list never completed"
        time.sleep(0.1)


def on(event, name):
    """A handler for EVENT that sets the returned Event when it is about NAME."""
    seen = threading.Event()
    return seen, (event, lambda o: seen.set() if o.metadata.name == name else None)


def test_cache_populated_after_start(informer):
    name = f"inf-pre-{short_uuid()}"
    watcher, _ = informer(before=[name])
    found = cached(watcher, name)
    assert found.metadata.name == name and found.data.get("k") == "v"


def test_added_event_and_cache_entry(core, informer):
    name = f"inf-add-{short_uuid()}"
    seen, handler = on(ADDED, name)
    watcher, maps = informer(handlers=[handler])
    listed(watcher)
    core.create_namespaced_config_map(body=informer_map(name), namespace="default")
    maps.append(name)
    assert seen.wait(WAIT), f"no ADDED for {name}"
    assert watcher.cache.get_by_key(f"default/{name}") is not None


def test_modified_event_and_cache_refresh(core, informer):
    name = f"inf-mod-{short_uuid()}"
    seen, handler = on(MODIFIED, name)
    watcher, maps = informer(handlers=[handler])
    core.create_namespaced_config_map(body=informer_map(name), namespace="default")
    maps.append(name)
    cached(watcher, name)
    core.patch_namespaced_config_map(name=name, namespace="default", body={"data": {"k": "updated"}})
    assert seen.wait(WAIT), f"no MODIFIED for {name}"
    assert watcher.cache.get_by_key(f"default/{name}").data.get("k") == "updated"


def test_deleted_event_removes_from_cache(core, informer):
    name = f"inf-del-{short_uuid()}"
    seen, handler = on(DELETED, name)
    watcher, _ = informer(handlers=[handler])
    core.create_namespaced_config_map(body=informer_map(name), namespace="default")
    cached(watcher, name)
    core.delete_namespaced_config_map(name=name, namespace="default")
    assert seen.wait(WAIT), f"no DELETED for {name}"
    assert watcher.cache.get_by_key(f"default/{name}") is None


def test_resource_version_advances(core, informer):
    name = f"inf-rv-{short_uuid()}"
    seen, handler = on(ADDED, name)
    watcher, maps = informer(handlers=[handler])
    listed(watcher)
    before = int(watcher._resource_version)
    core.create_namespaced_config_map(body=informer_map(name), namespace="default")
    maps.append(name)
    assert seen.wait(WAIT), f"no ADDED for {name}"
    assert int(watcher._resource_version) > before


def test_resync_fires_modified_for_existing_objects(informer):
    name = f"inf-rsync-{short_uuid()}"
    added, on_added = on(ADDED, name)
    resynced, on_resync = on(MODIFIED, name)
    watcher, _ = informer(handlers=[on_added, on_resync], resync_period=5, before=[name])
    assert added.wait(WAIT), f"no ADDED for {name}"
    # A resync every 5 s lists again and reports every cached object as MODIFIED.
    assert resynced.wait(15), f"no resync MODIFIED for {name}"
    assert watcher.cache.get_by_key(f"default/{name}").data.get("k") == "v"
