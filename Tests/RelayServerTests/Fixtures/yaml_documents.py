#!/usr/bin/env python3
"""Prints every YAML document of the files named as JSON: [{"file": path, "document": ...}, ...].
A file PyYAML refuses exits 1 with its error on stderr.

Requires: PyYAML (`pip install pyyaml`, Debian python3-yaml).
"""

import json
import sys

import yaml


def main():
    out = []
    for path in sys.argv[1:]:
        try:
            with open(path) as handle:
                for document in yaml.safe_load_all(handle):
                    if document is not None:
                        out.append({"file": path, "document": document})
        except yaml.YAMLError as error:
            print(f"{path}: {error}", file=sys.stderr)
            sys.exit(1)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
