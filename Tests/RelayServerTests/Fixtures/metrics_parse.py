#!/usr/bin/env python3
"""Parses a Prometheus text exposition page (the file named first, or stdin) with prometheus_client's own parser and
prints it as JSON: {"families": {name: type}, "samples": [[name, {label: value}, value], ...]}.
A page the parser refuses exits 1 with the parser's error on stderr.

Requires: prometheus_client (`pip install prometheus_client`).
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    families = {}
    samples = []
    try:
        for family in text_string_to_metric_families(text):
            families[family.name] = family.type
            for sample in family.samples:
                samples.append([sample.name, dict(sample.labels), sample.value])
    except Exception as error:  # the parser's own refusal, reported as is
        print(f"unparsable: {error}", file=sys.stderr)
        sys.exit(1)
    json.dump({"families": families, "samples": samples}, sys.stdout)


if __name__ == "__main__":
    main()
