#!/usr/bin/env python3
"""Writes the standalone, strict JSON schemas the kubernetes rendering test needs
from Kubernetes' OpenAPI v2 document (swagger.json). See README.md.

Usage: make_schemas.py SWAGGER_JSON OUT_DIR
"""
import json
import sys

# (definition, file): the kinds `corral spec --format kubernetes` renders.
KINDS = [
    ("io.k8s.api.core.v1.Pod", "pod-v1.json"),
    ("io.k8s.api.core.v1.Service", "service-v1.json"),
    ("io.k8s.api.core.v1.ConfigMap", "configmap-v1.json"),
    ("io.k8s.api.core.v1.Secret", "secret-v1.json"),
    ("io.k8s.api.networking.v1.NetworkPolicy", "networkpolicy-networking-v1.json"),
]
PREFIX = "#/definitions/"


def inline(node, definitions, stack):
    """The schema with every $ref replaced by its definition; descriptions
    dropped (size); objects with properties closed (additionalProperties:
    false), so a misspelt field fails as the API server's strict decoding does."""
    if isinstance(node, list):
        return [inline(n, definitions, stack) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"][len(PREFIX):]
        if name in stack:  # recursive types (JSONSchemaProps): accept anything there
            return {}
        return inline(definitions[name], definitions, stack + [name])
    if node.get("format") == "int-or-string":
        return {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    out = {}
    for key, value in node.items():
        if key == "description" or key.startswith("x-kubernetes-"):
            continue
        if key == "properties":
            out[key] = {k: inline(v, definitions, stack) for k, v in value.items()}
        else:
            out[key] = inline(value, definitions, stack)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def main():
    swagger = json.load(open(sys.argv[1]))
    definitions = swagger["definitions"]
    for name, file in KINDS:
        schema = inline(definitions[name], definitions, [name])
        gvk = definitions[name]["x-kubernetes-group-version-kind"][0]
        api = gvk["version"] if not gvk["group"] else gvk["group"] + "/" + gvk["version"]
        schema["properties"]["apiVersion"] = {"type": "string", "enum": [api]}
        schema["properties"]["kind"] = {"type": "string", "enum": [gvk["kind"]]}
        schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind"})
        schema["$schema"] = "http://json-schema.org/draft-04/schema#"
        with open(f"{sys.argv[2]}/{file}", "w") as out:
            json.dump(schema, out, indent=1, sort_keys=True)
            out.write("\n")


if __name__ == "__main__":
    main()
