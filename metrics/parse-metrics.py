"""Parses Prometheus text exposition from stdin with prometheus_client's parser (independent of
prom-client, which wrote it) and prints the samples as JSON. Used by the metrics/ tests."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families

families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        # JSON has no NaN or Inf (a fresh process's event loop gauges can be NaN): those go as strings.
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)}
                    for s in family.samples],
    })
print(json.dumps(families))
