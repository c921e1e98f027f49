"""The clients layer's pytest plugin (scripts/client-suites loads it with `-p kae_clients`).

- `kubernetes.e2e_test.base`: the tests that the official client's PyPI package ships
  (`kubernetes/dynamic/test_client.py`, `test_discovery.py`) import it, but the package does not
  ship it (its sdist and wheel leave `kubernetes/e2e_test` out). The one function they call,
  `get_e2e_configuration()`, is given here: a client Configuration from the kubeconfig that
  $KUBECONFIG names, which is what upstream's reads when a kubeconfig exists.
- The skip list: $CLIENTS_SKIP_FILE lines `SUITE<TAB>TEST ID<TAB>REASON`; the tests of
  $CLIENTS_SUITE listed there are skipped with their reason (printed, and in the `-rs` summary).
  A listed id that names no collected test fails the run: the list cannot go stale silently.
- The counts: passed, failed (errors included) and skipped, written to $CLIENTS_COUNTS as one
  line when the session ends.
"""

import os
import sys
import types

import pytest


def get_e2e_configuration():
    """A client Configuration for the cluster of $KUBECONFIG (the official client's e2e entry)."""
    from kubernetes.client.configuration import Configuration
    from kubernetes.config import kube_config

    config = Configuration()
    kube_config.load_kube_config(config_file=os.environ["KUBECONFIG"], client_configuration=config)
    return config


def _install_e2e_base():
    package = types.ModuleType("kubernetes.e2e_test")
    package.__path__ = []
    base = types.ModuleType("kubernetes.e2e_test.base")
    base.get_e2e_configuration = get_e2e_configuration
    package.base = base
    sys.modules.setdefault("kubernetes.e2e_test", package)
    sys.modules.setdefault("kubernetes.e2e_test.base", base)


_install_e2e_base()


def _skip_list():
    path, suite = os.environ.get("CLIENTS_SKIP_FILE"), os.environ.get("CLIENTS_SUITE")
    if not path or not suite:
        return {}
    listed = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or not all(f.strip() for f in fields):
                raise pytest.UsageError(f"{path}:{number}: expected SUITE<TAB>TEST ID<TAB>REASON")
            if fields[0] == suite:
                listed[fields[1]] = fields[2]
    return listed


def pytest_collection_modifyitems(config, items):
    listed = _skip_list()
    found = set()
    for item in items:
        reason = listed.get(item.nodeid)
        if reason is not None:
            found.add(item.nodeid)
            item.add_marker(pytest.mark.skip(reason=reason))
            print(f"\nSKIP {item.nodeid}: {reason}")
    missing = sorted(set(listed) - found)
    if missing:
        raise pytest.UsageError(f"the skip list names tests that do not exist: {', '.join(missing)}")


_OUTCOMES = {}


def pytest_runtest_logreport(report):
    """One outcome a test: failed if any phase failed, else passed if its call passed, else skipped."""
    if report.failed:
        _OUTCOMES[report.nodeid] = "failed"
    elif report.when == "call" and report.passed:
        _OUTCOMES.setdefault(report.nodeid, "passed")
    elif report.skipped:
        _OUTCOMES.setdefault(report.nodeid, "skipped")


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("CLIENTS_COUNTS")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            counts = [list(_OUTCOMES.values()).count(o) for o in ("passed", "failed", "skipped")]
            out.write(" ".join(map(str, counts)) + "\n")
