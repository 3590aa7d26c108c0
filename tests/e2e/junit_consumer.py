"""report_test.sh consumer: reads reapcheck's junit.xml with junitparser, a JUnit reader CI tools
are built on, and checks that the failing gate case shows the escaped survivor — its role, its
pid as results.json records it, and its program — in the failure's message, which such tools
show as the headline, and the full evidence in the failure's text.
    junit_consumer.py JUNIT_XML RESULTS_JSON"""
import json
import sys

from junitparser import Failure, JUnitXml

junit, results = sys.argv[1], sys.argv[2]
cases = json.load(open(results))["cases"]
leak = next(c for c in cases if c["scenario"] == "setsid-escape" and c["reaper"].startswith("exec:"))
survivor = next(s for s in leak["survivors"] if s["role"] == "escaped")
wanted = f"escaped (pid {survivor['pid']}, perl tree.pl"

for suite in JUnitXml.fromfile(junit):
    for case in suite:
        if case.name != "setsid-escape" or not case.classname.startswith("exec:"):
            continue
        failures = [r for r in case.result if isinstance(r, Failure)]
        assert failures, f"{case.name}: no failure, results: {case.result}"
        message, text = failures[0].message, failures[0].text
        assert message.startswith("leak (expected pass): "), message
        assert wanted in message, f"{wanted!r} not in the message {message!r}"
        assert "survivors:" in text and "tree.pl" in text, text
        print(f"junitparser shows the failure's message: {message}")
        sys.exit(0)
sys.exit("no setsid-escape case of the exec: reaper in " + junit)
