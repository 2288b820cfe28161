#!/usr/bin/env python3
"""corral spec --format kubernetes, black-box: every object it prints is valid
against Kubernetes' own schemas (tests/kubernetes-schema), and the box's
promises hold in it: the agent's container is locked down, no login's value
is printed, the agent has a stand-in for it and only the proxy's Pod reads the
Secrets with the value and the session CA's key, the agent's NetworkPolicy
lets it reach only the proxy, the proxy runs with the session's list. No
cluster: the checks are on the text.

Usage: render_test.py CORRAL
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import jsonschema
import yaml

CORRAL = sys.argv.pop(1)
SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kubernetes-schema")
SCHEMA_FILES = {("v1", "Pod"): "pod-v1.json", ("v1", "Service"): "service-v1.json",
                ("v1", "ConfigMap"): "configmap-v1.json", ("v1", "Secret"): "secret-v1.json",
                ("networking.k8s.io/v1", "NetworkPolicy"): "networkpolicy-networking-v1.json"}
SECRET_VALUE = "sk-ant-test-do-not-print-4711"
ALLOWED = ["example.org", "*.pkg.example", "mirror.example:8443"]
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$")
# Pod Security "restricted" allows only these volume types.
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                      "persistentVolumeClaim", "projected", "secret"}


def schema_errors(obj):
    key = (obj.get("apiVersion"), obj.get("kind"))
    if key not in SCHEMA_FILES:
        return [f"no schema for {key}"]
    with open(os.path.join(SCHEMAS, SCHEMA_FILES[key])) as f:
        validator = jsonschema.Draft4Validator(json.load(f))
    return [f"{obj['kind']} {obj['metadata'].get('name')}: {'/'.join(map(str, e.path))}: "
            f"{e.message}" for e in validator.iter_errors(obj)]


def api_server_errors(obj):
    """What the API server checks beyond the schema, for the fields we use."""
    errors = []
    meta = obj["metadata"]
    if not DNS_LABEL.match(meta.get("name", "")):
        errors.append(f"name {meta.get('name')!r} is not a DNS label")
    for key, value in meta.get("labels", {}).items():
        if not LABEL_VALUE.match(value):
            errors.append(f"label {key}={value!r} is not a label value")
    if obj["kind"] == "Pod":
        spec = obj["spec"]
        volumes = {v["name"] for v in spec.get("volumes", [])}
        for c in spec.get("initContainers", []) + spec["containers"]:
            for m in c.get("volumeMounts", []):
                if m["name"] not in volumes:
                    errors.append(f"{c['name']} mounts {m['name']}, which is not a volume")
                if m.get("subPath", "").startswith("/") or ".." in m.get("subPath", "").split("/"):
                    errors.append(f"{c['name']}: subPath {m['subPath']!r}")
            for e in c.get("env", []):
                if ("value" in e) == ("valueFrom" in e):
                    errors.append(f"env {e['name']}: one of value and valueFrom")
    return errors


def matches(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def security_errors(objects):
    """The box's promises, as far as the rendering can keep them."""
    errors = []
    pods = [o for o in objects if o["kind"] == "Pod"]
    agent = next((p for p in pods if p["metadata"]["labels"].get("corral.role") == "agent"), None)
    proxy = next((p for p in pods if p["metadata"]["labels"].get("corral.role") == "proxy"), None)
    if not agent or not proxy:
        return ["an agent Pod and a proxy Pod"]
    for pod in pods:
        spec = pod["spec"]
        name = pod["metadata"]["name"]
        for field in ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace"):
            if spec.get(field):
                errors.append(f"{name}: {field}")
        if spec.get("automountServiceAccountToken") is not False:
            errors.append(f"{name}: the service account token is mounted")
        for v in spec.get("volumes", []):
            kinds = set(v) - {"name"}
            if not kinds <= RESTRICTED_VOLUMES:
                errors.append(f"{name}: volume {v['name']} is {kinds}")
        for c in spec.get("initContainers", []) + spec["containers"]:
            sc = c.get("securityContext", {})
            where = f"{name}/{c['name']}"
            if sc.get("allowPrivilegeEscalation") is not False:
                errors.append(f"{where}: allowPrivilegeEscalation is not false")
            if sc.get("privileged"):
                errors.append(f"{where}: privileged")
            if sc.get("capabilities", {}).get("drop") != ["ALL"] or sc["capabilities"].get("add"):
                errors.append(f"{where}: capabilities are not all dropped")
            if sc.get("readOnlyRootFilesystem") is not True:
                errors.append(f"{where}: the root filesystem is writable")
            if sc.get("runAsNonRoot") is not True or sc.get("runAsUser", 0) == 0:
                errors.append(f"{where}: may run as root")
            if sc.get("seccompProfile", {}).get("type") not in ("Localhost", "RuntimeDefault"):
                errors.append(f"{where}: no seccomp profile")
    # The login Secrets (the values, the session CA's key) are the proxy's alone.
    login_secrets = {o["metadata"]["name"] for o in objects if o["kind"] == "Secret"}
    login_secrets |= {ref for e in proxy["spec"]["containers"][0].get("env", [])
                      for ref in [e.get("valueFrom", {}).get("secretKeyRef", {}).get("name")]
                      if ref and e["name"] != "MY_TOKEN"}
    for c in agent["spec"].get("initContainers", []) + agent["spec"]["containers"]:
        for e in c.get("env", []):
            ref = e.get("valueFrom", {}).get("secretKeyRef", {}).get("name")
            if ref in login_secrets:
                errors.append(f"agent/{c['name']}: env {e['name']} reads the login Secret {ref}")
    for v in agent["spec"].get("volumes", []):
        if v.get("secret", {}).get("secretName") in login_secrets:
            errors.append(f"agent: volume {v['name']} is the login Secret")
    box = agent["spec"]["containers"][0]["securityContext"]
    session = agent["metadata"]["labels"]["corral.session"]
    if box.get("seccompProfile") != {"type": "Localhost",
                                     "localhostProfile": f"corral/{session}.json"}:
        errors.append(f"agent: seccomp is {box.get('seccompProfile')}")
    errors += network_errors(objects, agent, proxy)
    return errors


def network_errors(objects, agent, proxy):
    errors = []
    policies = [o for o in objects if o["kind"] == "NetworkPolicy"]
    services = [o for o in objects if o["kind"] == "Service"
                and matches({"matchLabels": o["spec"]["selector"]}, proxy["metadata"]["labels"])]
    if len(services) != 1:
        return ["one Service selects the proxy Pod"]
    agent_labels = agent["metadata"]["labels"]
    proxy_labels = proxy["metadata"]["labels"]
    on_agent = [p for p in policies if matches(p["spec"]["podSelector"], agent_labels)]
    if not on_agent:
        return ["no NetworkPolicy selects the agent Pod"]
    for policy in on_agent:
        spec = policy["spec"]
        if set(spec.get("policyTypes", [])) != {"Ingress", "Egress"}:
            errors.append(f"{policy['metadata']['name']}: policyTypes {spec.get('policyTypes')}")
        if spec.get("ingress"):
            errors.append(f"{policy['metadata']['name']}: lets something reach the agent")
        for rule in spec.get("egress", []):
            peers = rule.get("to", [])
            ports = rule.get("ports", [])
            if not peers or not ports:
                errors.append(f"agent egress rule {rule}: to anywhere or on any port")
                continue
            for peer in peers:
                to_proxy = set(peer) == {"podSelector"} \
                    and matches(peer["podSelector"], proxy_labels) \
                    and peer["podSelector"].get("matchLabels")
                to_dns = set(peer) == {"namespaceSelector", "podSelector"} \
                    and peer["podSelector"].get("matchLabels") == {"k8s-app": "kube-dns"} \
                    and peer["namespaceSelector"].get("matchLabels") == \
                    {"kubernetes.io/metadata.name": "kube-system"}
                if to_proxy and all(p == {"protocol": "TCP", "port": 3128} for p in ports):
                    continue
                if to_dns and all(p.get("port") == 53 for p in ports):
                    continue
                errors.append(f"agent egress to {peer} on {ports}: not the proxy, not DNS")
    on_proxy = [p for p in policies if matches(p["spec"]["podSelector"], proxy_labels)]
    for policy in on_proxy:
        for rule in policy["spec"].get("ingress", []):
            for peer in rule.get("from", [{}]):
                if not matches(peer.get("podSelector", {"matchLabels": {"x": "none"}}),
                               agent_labels) or set(peer) != {"podSelector"}:
                    errors.append(f"the proxy is reached by {peer}, not only the agent")
    if not on_proxy:
        errors.append("no NetworkPolicy selects the proxy Pod")
    return errors


class KubernetesRenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        home = os.path.join(cls.dir.name, "home")
        cls.project = os.path.join(cls.dir.name, "shop")
        os.makedirs(home)
        os.makedirs(os.path.join(cls.project, ".git", "hooks"))
        with open(os.path.join(cls.project, ".git", "config"), "w") as f:
            f.write('[remote "origin"]\n\turl = https://git.example.com/acme/shop.git\n')
        with open(os.path.join(cls.project, ".env"), "w") as f:
            f.write("TOKEN=1\n")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home,
               "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
               "XDG_STATE_HOME": os.path.join(home, "state"),
               "XDG_RUNTIME_DIR": cls.dir.name, "ANTHROPIC_API_KEY": SECRET_VALUE,
               "MY_TOKEN": SECRET_VALUE + "-2"}
        cls.out = subprocess.run(
            [CORRAL, "--set", "network.allowed_domains=" + json.dumps(ALLOWED),
             "--set", 'pass=["MY_TOKEN"]', "spec", "--format", "kubernetes",
             "--proxy-image", "corral:test", "claude", "-p", "fix the build"],
            capture_output=True, text=True, cwd=cls.project, env=env, timeout=60,
            stdin=subprocess.DEVNULL)
        cls.objects = list(yaml.safe_load_all(cls.out.stdout)) if cls.out.returncode == 0 else []

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def setUp(self):
        self.assertEqual(self.out.returncode, 0, self.out.stderr)

    def of(self, kind, role=None):
        return [o for o in self.objects if o["kind"] == kind
                and (role is None or o["metadata"]["labels"].get("corral.role") == role)]

    def agent_container(self):
        return self.of("Pod", "agent")[0]["spec"]["containers"][0]

    def test_every_object_is_valid_for_kubernetes(self):
        kinds = sorted(o["kind"] for o in self.objects)
        self.assertEqual(kinds, ["ConfigMap", "NetworkPolicy", "NetworkPolicy", "Pod", "Pod",
                                 "Secret", "Service"])
        for obj in self.objects:
            self.assertEqual(schema_errors(obj), [])
            self.assertEqual(api_server_errors(obj), [])

    def test_the_box_promises_hold(self):
        self.assertEqual(security_errors(self.objects), [])
        box = self.agent_container()["securityContext"]
        if os.getuid() != 0:  # as root the Pod runs as nobody, and says so
            self.assertEqual((box["runAsUser"], box["runAsGroup"]), (os.getuid(), os.getgid()))
        else:
            self.assertIn("runs as 65534:65534", self.out.stdout)

    def test_the_checks_fail_on_a_weaker_rendering(self):
        """The checks above can fail: each weakening is caught."""
        def weakened(change):
            objects = copy.deepcopy(self.objects)
            change(objects)
            return objects

        def agent(objects):
            return next(o for o in objects if o["kind"] == "Pod"
                        and o["metadata"]["labels"]["corral.role"] == "agent")

        def agent_policy(objects):
            return next(o for o in objects if o["kind"] == "NetworkPolicy"
                        and o["metadata"]["name"].endswith("-agent"))

        cases = {
            "escalation": lambda o: agent(o)["spec"]["containers"][0]["securityContext"].pop(
                "allowPrivilegeEscalation"),
            "all egress": lambda o: agent_policy(o)["spec"]["egress"].append({}),
            "egress to the world": lambda o: agent_policy(o)["spec"]["egress"].append(
                {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]}),
            "no egress type": lambda o: agent_policy(o)["spec"]["policyTypes"].remove("Egress"),
            "a capability": lambda o: agent(o)["spec"]["containers"][0]["securityContext"][
                "capabilities"].update({"add": ["NET_RAW"]}),
            "hostPath": lambda o: agent(o)["spec"]["volumes"].append(
                {"name": "h", "hostPath": {"path": "/"}}),
            "root": lambda o: agent(o)["spec"]["containers"][0]["securityContext"].update(
                {"runAsUser": 0}),
            "the agent reads the login": lambda o: agent(o)["spec"]["containers"][0][
                "env"].append({"name": "ANTHROPIC_API_KEY", "valueFrom": {"secretKeyRef": {
                    "name": "corral-claude-logins", "key": "ANTHROPIC_API_KEY"}}}),
            "the agent mounts the CA key": lambda o: agent(o)["spec"]["volumes"].append(
                {"name": "k", "secret": {"secretName": next(
                    x["metadata"]["name"] for x in o if x["kind"] == "Secret")}}),
        }
        for name, change in cases.items():
            self.assertNotEqual(security_errors(weakened(change)), [], name)
        typo = weakened(lambda o: agent(o)["spec"]["containers"][0]["securityContext"].update(
            {"allowPrivilegeEscalaton": False}))
        self.assertNotEqual(schema_errors(agent(typo)), [], "a misspelt field")
        port = weakened(lambda o: agent_policy(o)["spec"]["egress"][0]["ports"][0].update(
            {"port": [3128]}))
        self.assertNotEqual(schema_errors(agent_policy(port)), [], "a list for a port")

    def test_no_login_value_is_printed_and_the_secret_is_named(self):
        self.assertNotIn(SECRET_VALUE, self.out.stdout)
        env = {e["name"]: e for e in self.agent_container()["env"]}
        # A variable in `pass` comes from the Secret the user makes, by name.
        for name in ("MY_TOKEN",):
            self.assertNotIn("value", env[name])
            ref = env[name]["valueFrom"]["secretKeyRef"]
            self.assertEqual(ref["key"], name)
            self.assertIn(f"kubectl create secret generic {ref['name']}", self.out.stdout)

    def test_the_agent_has_a_stand_in_and_the_proxy_the_login(self):
        """claude's recipe names ANTHROPIC_API_KEY a login (docs/logins.md): the
        agent's Pod gets a stand-in of its shape, the proxy's Pod the value from
        a Secret the user makes, and the logins table and session CA from the
        rendered Secret; the agent trusts the CA's certificate."""
        agent_env = {e["name"]: e for e in self.agent_container()["env"]}
        stand_in = agent_env["ANTHROPIC_API_KEY"].get("value", "")
        self.assertEqual(len(stand_in), len(SECRET_VALUE))
        self.assertTrue(stand_in.startswith("sk-ant-") and stand_in != SECRET_VALUE, stand_in)
        proxy = self.of("Pod", "proxy")[0]["spec"]["containers"][0]
        self.assertIn("--logins-env", proxy["args"])
        proxy_env = {e["name"]: e for e in proxy["env"]}
        ref = proxy_env["ANTHROPIC_API_KEY"]["valueFrom"]["secretKeyRef"]
        self.assertEqual(ref, {"name": "corral-claude-logins", "key": "ANTHROPIC_API_KEY"})
        self.assertIn("kubectl create secret generic corral-claude-logins "
                      '--from-literal=ANTHROPIC_API_KEY="$ANTHROPIC_API_KEY"', self.out.stdout)
        secret = self.of("Secret")[0]
        table_ref = proxy_env["CORRAL_PROXY_LOGINS"]["valueFrom"]["secretKeyRef"]
        self.assertEqual(table_ref, {"name": secret["metadata"]["name"], "key": "logins.json"})
        table = json.loads(secret["stringData"]["logins.json"])
        self.assertEqual(table["logins"][0]["stand_in"], stand_in)
        self.assertEqual(table["logins"][0]["value_env"], "ANTHROPIC_API_KEY")
        self.assertNotIn("value", table["logins"][0])
        self.assertIn("PRIVATE KEY", table["ca"]["key"])
        # The agent's bundle: the session CA's certificate, never its key.
        bundle = self.of("ConfigMap")[0]["data"]["ca-bundle.crt"]
        self.assertIn(table["ca"]["cert"], bundle)
        self.assertNotIn("PRIVATE KEY", json.dumps(self.of("ConfigMap")))
        mounts = {m["mountPath"]: m for m in self.agent_container()["volumeMounts"]}
        self.assertEqual(mounts["/etc/ssl/certs/ca-certificates.crt"]["subPath"], "ca-bundle.crt")
        self.assertEqual(security_errors(self.objects), [])

    def test_the_agent_reaches_the_proxy_by_its_service(self):
        service = self.of("Service")[0]
        url = f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
        env = {e["name"]: e.get("value") for e in self.agent_container()["env"]}
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            self.assertEqual(env[name], url, name)
        self.assertNotIn("127.0.0.1:3128", self.out.stdout)

    def test_the_proxy_runs_corral_proxy_with_the_sessions_list(self):
        proxy = self.of("Pod", "proxy")[0]["spec"]["containers"][0]
        self.assertEqual(proxy["image"], "corral:test")
        args = proxy["args"]
        self.assertEqual(args[:3], ["proxy", "--listen", "0.0.0.0:3128"])
        allowed = [args[i + 1] for i, a in enumerate(args) if a == "--allow"]
        for host in ALLOWED + ["git.example.com:443"]:
            self.assertIn(host, allowed)
        policy = [p for p in self.of("NetworkPolicy") if p["metadata"]["name"] ==
                  self.of("Pod", "proxy")[0]["metadata"]["name"]][0]
        ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}
        self.assertIn(8443, ports)

    def test_the_project_masks_and_seccomp(self):
        pod = self.of("Pod", "agent")[0]
        project = os.path.realpath(self.project)
        mounts = {m["mountPath"]: m for m in self.agent_container()["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        self.assertIn("persistentVolumeClaim", volumes[mounts[project]["name"]])
        for path in (".git/hooks", ".git/config", ".env"):
            self.assertTrue(mounts[f"{project}/{path}"]["readOnly"], path)
        self.assertEqual(mounts[f"{project}/.env"]["subPath"], "empty")
        files = self.of("ConfigMap")[0]["data"]
        self.assertEqual(files["empty"], "")
        self.assertIn("git push --force\n", files["deny-list"])
        seccomp = subprocess.run([CORRAL, "seccomp"], capture_output=True, text=True, timeout=60)
        self.assertEqual(json.loads(files["seccomp.json"]), json.loads(seccomp.stdout))
        self.assertEqual(self.agent_container()["resources"]["limits"].keys() >= {"memory"}, True)

    def test_says_what_is_not_built(self):
        self.assertIn("not tested on a cluster", self.out.stdout)
        self.assertIn("the oracle", self.out.stdout)
        self.assertIn("inbox", self.out.stdout)
        self.assertIn("/var/lib/kubelet/seccomp/corral/", self.out.stdout)
        self.assertIn("corral.not-built", self.of("Pod", "agent")[0]["metadata"]["annotations"])


if __name__ == "__main__":
    unittest.main()
