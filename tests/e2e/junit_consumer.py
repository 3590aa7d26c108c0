"""report_test.sh consumer: reads reapcheck's junit.xml with junitparser, the JUnit reader that
EnricoMi/publish-unit-test-result-action is built on, and checks
- that the failing gate case shows the escaped survivor — its role, its pid as results.json
  records it, and its program — in the failure's message, which such tools show as the
  headline, and the full evidence in the failure's text;
- that a reaper which could not run (exec:false) is an error, not a failure;
- the counts and time that action sums over the suites, and its annotations' titles
  ("NAME (CLASSNAME) failed", "... with error": python/publish/__init__.py, get_case_annotation).
    junit_consumer.py JUNIT_XML RESULTS_JSON"""
import json
import re
import sys

from junitparser import Error, Failure, JUnitXml

junit, results = sys.argv[1], sys.argv[2]
run = json.load(open(results))
cases = run["cases"]
leak = next(c for c in cases if c["scenario"] == "setsid-escape" and c["reaper"].startswith("group-kill="))
survivor = next(s for s in leak["survivors"] if s["role"] == "escaped")
wanted = f"escaped (pid {survivor['pid']}, perl tree.pl"
errors = [c for c in cases if not c["as_expected"] and c["verdict"] in ("setup-error", "reaper-error", "reaper-timeout")]
failures = [c for c in cases if not c["as_expected"] and c["verdict"] != "skipped" and c not in errors]
assert errors and failures, (errors, failures)

xml = JUnitXml.fromfile(junit)
suites = list(xml)
# What the action sums over the suites (python/publish/junit.py, process_junit_xml_elems).
sums = {k: sum(getattr(s, k) for s in suites) for k in ("tests", "failures", "errors")}
assert sums == {"tests": len(cases), "failures": len(failures), "errors": len(errors)}, sums
assert abs(sum(s.time for s in suites) - sum(c["timings_ms"]["case"] for c in cases) / 1000) < 0.01
assert abs(float(xml._elem.get("time")) - run["wall_s"]) < 0.001, xml._elem.get("time")

titles = []
for suite in suites:
    for case in suite:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", case.classname), case.classname
        kinds = [type(r) for r in case.result if isinstance(r, (Failure, Error))]
        if kinds:
            state = "with error" if kinds[0] is Error else "failed"
            titles.append(f"{case.name} ({case.classname}) {state}")
        if case.classname.startswith("exec-false-"):
            assert kinds == [Error], f"{case.name}: exec:false gives {case.result}"
            assert case.result[0].type == "reaper-error", case.result[0].type
        if case.name != "setsid-escape" or case.classname != "group-kill":
            continue
        failures = [r for r in case.result if isinstance(r, Failure)]
        assert failures, f"{case.name}: no failure, results: {case.result}"
        message, text = failures[0].message, failures[0].text
        assert message.startswith("leak (expected pass): "), message
        assert wanted in message, f"{wanted!r} not in the message {message!r}"
        assert "survivors:" in text and "tree.pl" in text, text
        print(f"junitparser shows the failure's message: {message}")
assert "setsid-escape (group-kill) failed" in titles, titles
assert any(re.fullmatch(r"plain-child \(exec-false-[0-9a-f]{8}\) with error", t) for t in titles), titles
print(f"EnricoMi's titles: {titles}")
print(f"summed over the suites: {sums}")
