// report_test.sh parsers: reads a real run's junit.xml with the XML parsers the GitHub JUnit
// reporters are built on, as they read it, and checks what each would show against the run's
// results.json:
//   xml2js (dorny/test-reporter, src/parsers/java-junit/java-junit-parser.ts and
//     src/report/get-annotations.ts): the run's time from <testsuites time>, suites, tests, and
//     an annotation titled "SUITE ► NAME" whose message is "TYPE: MESSAGE";
//   xml-js (mikepenz/action-junit-report v5 and v6, src/testParser.ts): totals counted from the
//     testcases (an <error> is failed too), an annotation titled "CLASS.NAME" where CLASS is the
//     classname's last dot-separated part, with the message as its message;
// and EnricoMi/publish-unit-test-result-action's titles (python/publish/__init__.py; its reader,
// junitparser, is report/consumer's). The table of docs/gate.md that follows the line
// "<!-- report/parsers: the table below -->" must show what these give, the pids aside.
//     junit_parsers.mjs JUNIT_XML RESULTS_JSON TOOLS_DIR GATE_MD
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {join} from 'node:path';

const [junitPath, resultsPath, tools, gateDoc] = process.argv.slice(2);
const require = createRequire(join(tools, 'package.json'));
const xml2js = require('xml2js');
const xmljs = require('xml-js');
const xml = readFileSync(junitPath, 'utf8');
const results = JSON.parse(readFileSync(resultsPath, 'utf8'));

// What the run should count, from results.json: an error is a deviation the reaper or the
// harness could not carry out; every other deviation is a failure.
const errorVerdicts = new Set(['setup-error', 'reaper-error', 'reaper-timeout']);
const deviations = results.cases.filter(c => !c.as_expected && c.verdict !== 'skipped');
const want = {
  tests: results.cases.length,
  errors: deviations.filter(c => errorVerdicts.has(c.verdict)).length,
  failures: deviations.filter(c => !errorVerdicts.has(c.verdict)).length,
  skipped: results.cases.filter(c => c.verdict === 'skipped').length,
};
assert.ok(want.errors > 0 && want.failures > 0, `the run needs both: ${JSON.stringify(want)}`);
const plain = /^[A-Za-z0-9_-]+$/;

// dorny/test-reporter: xml2js's parseStringPromise, then <testsuites>'s time as the run's.
async function dorny() {
  const ju = await xml2js.parseStringPromise(xml);
  const runMs = parseFloat(ju.testsuites.$.time) * 1000;
  assert.ok(Math.abs(runMs - results.wall_s * 1000) < 1, `run time ${runMs} ms, wall ${results.wall_s} s`);
  assert.equal(parseInt(ju.testsuites.$.errors), want.errors, 'testsuites errors');
  assert.equal(parseInt(ju.testsuites.$.failures), want.failures, 'testsuites failures');
  assert.equal(parseInt(ju.testsuites.$.tests), want.tests, 'testsuites tests');
  const annotations = [];
  let failed = 0;
  for (const ts of ju.testsuites.testsuite) {
    const suite = ts.$.name.trim();
    assert.match(suite, plain);
    const caseSeconds = ts.testcase.reduce((s, tc) => s + parseFloat(tc.$.time), 0);
    assert.ok(Math.abs(parseFloat(ts.$.time) - caseSeconds) < 0.01, `${suite}: time ${ts.$.time}`);
    for (const tc of ts.testcase) {
      // The classname is the suite's name, so dorny puts the test in no group of its own.
      assert.equal(tc.$.classname, suite, `${suite} ► ${tc.$.name}: its classname`);
      const issue = (tc.failure ?? tc.error)?.[0];
      if (!issue) continue;
      ++failed;
      annotations.push({
        title: `${suite} ► ${tc.$.name.trim()}`,
        message: `${issue.$.type}: ${issue.$.message}`,  // after "Failed test found in: FILE, Error:"
        enricoTitle: `${tc.$.name} (${tc.$.classname}) ${tc.failure ? 'failed' : 'with error'}`,
      });
    }
  }
  assert.equal(failed, want.errors + want.failures, 'dorny: failed tests');
  return annotations;
}

// mikepenz/action-junit-report: xml-js's compact JSON, every testcase of every suite counted.
function mikepenz() {
  const report = JSON.parse(xmljs.xml2json(xml, {compact: true}));
  const asArray = v => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const annotations = [];
  let total = 0, skipped = 0, failed = 0;
  for (const suite of asArray(report.testsuites.testsuite)) {
    for (const tc of asArray(suite.testcase)) {
      ++total;
      if (tc.skipped) ++skipped;
      const issue = asArray(tc.failure).concat(asArray(tc.error))[0];
      if (!issue) continue;
      ++failed;
      const classname = tc._attributes.classname;
      assert.ok(!classname.includes('.'), `a classname with a dot: ${classname}`);
      annotations.push({
        title: `${classname.split('.').slice(-1)[0]}.${tc._attributes.name}`,
        message: issue._attributes.message.trim(),
        details: (issue._cdata || issue._text || '').toString().trim(),
      });
    }
  }
  assert.deepEqual({total, skipped, failed},
                   {total: want.tests, skipped: want.skipped, failed: want.errors + want.failures});
  const passed = total - skipped - failed;
  const checkTitle = `${total} tests run, ${passed} passed, ${skipped} skipped, ${failed} failed.`;
  console.log(`mikepenz's check title: ${checkTitle}`);
  return {annotations, checkTitle};
}

// The rows of docs/gate.md's table: | reporter | `title` | `message` or words |. A message in
// backquotes is what the reporter shows, up to its "…" if it ends so; pids are free.
function checkDoc(shown) {
  const text = readFileSync(gateDoc, 'utf8');
  const lines = text.split('\n');
  const at = lines.indexOf('<!-- report/parsers: the table below -->');
  assert.ok(at >= 0, `${gateDoc}: no table marked for report/parsers`);
  const rows = [];
  for (const line of lines.slice(at + 3)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(' | ').map(cell => cell.replace(/^\| |\s*\|$/g, '')));
  }
  assert.ok(rows.length >= 6, `${gateDoc}: ${rows.length} rows`);
  const freePids = t => t.replace(/pid \d+/g, 'pid N');
  for (const [tool, titleCell, messageCell] of rows) {
    const title = titleCell.replace(/^`|`$/g, '');
    const a = shown[tool]?.find(x => x.title === title);
    assert.ok(a, `${gateDoc}: ${tool} shows no annotation titled '${title}'`);
    if (!messageCell.startsWith('`')) continue;
    const doc = freePids(messageCell.replace(/^`|`$/g, ''));
    const real = freePids(a.message);
    const ok = doc.endsWith('…') ? real.startsWith(doc.slice(0, -1)) : real === doc;
    assert.ok(ok, `${gateDoc}: ${tool}, ${title}: the table says '${doc}', the reporter '${real}'`);
  }
  return rows.length;
}

// The cases the gate run of report_test.sh is known to give, as each tool shows them.
function expectShown(tool, annotations, title, messageStart) {
  const a = annotations.find(x => x.title === title);
  assert.ok(a, `${tool}: no annotation titled '${title}' in ${JSON.stringify(annotations.map(x => x.title))}`);
  assert.ok(a.message.startsWith(messageStart), `${tool}: '${title}' says '${a.message}'`);
  console.log(`${tool}: ${a.title} | ${a.message.split('\n')[0]}`);
  return a;
}

const shownByDorny = await dorny();
const {annotations: shownByMikepenz, checkTitle} = mikepenz();
const falseClass = xml.match(/<testsuite name="(exec-false-[0-9a-f]{8})"/)?.[1];
assert.ok(falseClass, 'no suite named exec-false-CHECKSUM');
expectShown('dorny', shownByDorny, 'group-kill ► setsid-escape', 'leak: leak (expected pass): escaped (pid ');
expectShown('dorny', shownByDorny, `${falseClass} ► plain-child`, 'reaper-error: reaper-error (expected pass): ');
const leak = expectShown('mikepenz', shownByMikepenz, 'group-kill.setsid-escape', 'leak (expected pass): escaped (pid ');
assert.ok(leak.details.includes('tree.pl'), `mikepenz's raw details: ${leak.details}`);
expectShown('mikepenz', shownByMikepenz, `${falseClass}.plain-child`, 'reaper-error (expected pass): ');
const rows = checkDoc({
  'mikepenz/action-junit-report': shownByMikepenz,
  'dorny/test-reporter': shownByDorny,
  'EnricoMi/publish-unit-test-result-action': shownByDorny.map(a => ({title: a.enricoTitle, message: ''})),
});
assert.ok(readFileSync(gateDoc, 'utf8').replace(/\s+/g, ' ').includes(`\`${checkTitle}\``),
          `${gateDoc} does not give mikepenz's check title \`${checkTitle}\``);
console.log(`counts: ${JSON.stringify(want)}, time ${results.wall_s.toFixed(3)} s; ${rows} rows of ${gateDoc} as shown`);
