'use strict';
// agent-fix: mocha reporter. Prints what mocha's spec reporter prints (suites, tests,
// summary, numbered failures with message, diff and stack) and writes one JSON line per
// test, failing hook and run end to the file named by --reporter-option agentFixOutput=<file>
// (appended as tests finish, so a run killed by the timeout still leaves what ran).
// Plain CommonJS without dependencies, loaded by the repository's own mocha with require
// (checked with mocha 10.8, 11.8 and 12.0, serial and --parallel). The build ships it as
// dist/mocha-reporter.cjs; runners/mocha.ts copies it into each run's temporary directory
// and parseMochaJsonl reads its lines.
var fs = require('fs');
var util = require('util');

function AgentFixReporter(runner, options) {
  var opts = (options && (options.reporterOption || options.reporterOptions)) || {};
  var file = opts.agentFixOutput;
  if (file) fs.writeFileSync(file, '');
  var record = function (o) {
    if (!file) return;
    try {
      fs.appendFileSync(file, JSON.stringify(o) + '\n');
    } catch (e) {
      // the report is best effort; the output stays
    }
  };
  var print = function (s) {
    process.stdout.write((s === undefined ? '' : s) + '\n');
  };
  var indents = 0;
  var indent = function () {
    return Array(indents).join('  ');
  };
  var failures = [];
  var passes = 0;
  var pending = 0;
  var started = Date.now();
  var titles = function (t) {
    if (t && typeof t.titlePath === 'function') return t.titlePath();
    if (t && Array.isArray(t.$$titlePath)) return t.$$titlePath;
    return [t && typeof t.fullTitle === 'function' ? t.fullTitle() : String(t && t.title)];
  };
  var entry = function (t, state) {
    var o = { type: t && t.type === 'hook' ? 'hook' : 'test', path: titles(t), state: state };
    if (t && t.file) o.file = t.file;
    if (t && typeof t.duration === 'number') o.duration = t.duration;
    return o;
  };

  runner.on('start', function () {
    print();
  });
  runner.on('suite', function (suite) {
    ++indents;
    print(indent() + suite.title);
  });
  runner.on('suite end', function () {
    --indents;
    if (indents === 1) print();
  });
  runner.on('pending', function (test) {
    pending++;
    print(indent() + '  - ' + test.title);
    record(entry(test, 'skipped'));
  });
  runner.on('pass', function (test) {
    passes++;
    var slow = typeof test.slow === 'function' ? test.slow() : 75;
    var took = typeof test.duration === 'number' && test.duration > slow / 2 ? ' (' + test.duration + 'ms)' : '';
    print(indent() + '  \u2714 ' + test.title + took);
    record(entry(test, 'passed'));
  });
  runner.on('fail', function (test, err) {
    failures.push([test, err]);
    print(indent() + '  ' + failures.length + ') ' + test.title);
    var o = entry(test, 'failed');
    var d = describe(err);
    o.message = d.message;
    o.details = d.text;
    record(o);
  });
  runner.once('end', function () {
    var ms = Date.now() - started;
    print();
    print('  ' + passes + ' passing (' + (ms >= 1000 ? Math.round(ms / 1000) + 's' : ms + 'ms') + ')');
    if (pending) print('  ' + pending + ' pending');
    if (failures.length) {
      print('  ' + failures.length + ' failing');
      failures.forEach(function (f, i) {
        var head = '';
        var pad = '';
        titles(f[0]).forEach(function (s, j) {
          if (j !== 0) head += '\n     ' + pad;
          head += s;
          pad += '  ';
        });
        print();
        print('  ' + (i + 1) + ') ' + head + ':');
        print(describe(f[1]).text);
      });
    }
    print();
    record({ type: 'end', passes: passes, failures: failures.length, pending: pending, duration: ms });
  });
}

function show(v) {
  return typeof v === 'string' ? v : util.inspect(v, { depth: 8, sorted: true, breakLength: 60 });
}

// message, the "+ expected - actual" diff (differing lines, with the common lines around; not when the message
// already shows one, as node's assert does), the stack
function describe(err) {
  if (err === undefined || err === null) return { message: 'failed', text: '     failed' };
  if (typeof err !== 'object') return { message: String(err), text: '     ' + String(err) };
  var message = typeof err.message === 'string' ? err.message : '';
  var stack = typeof err.stack === 'string' ? err.stack : '';
  var msg = message || String(err);
  var at = message ? stack.indexOf(message) : -1;
  if (at !== -1) {
    msg = stack.slice(0, at + message.length);
    stack = stack.slice(at + message.length + 1);
  } else if (stack) {
    var first = stack.indexOf('\n    at ');
    if (first !== -1) {
      if (!message) msg = stack.slice(0, first);
      stack = stack.slice(first + 1);
    }
  }
  var diff = '';
  // node's assert and chai-style messages that already carry a diff are not diffed twice
  var hasDiff = /\+ actual - expected|- expected\s+\+ received|Expected:[^\n]*\n\s*Received:/i.test(message);
  if (!hasDiff && err.showDiff !== false && err.expected !== undefined && typeof err.actual === typeof err.expected) {
    var a = show(err.actual).split('\n');
    var b = show(err.expected).split('\n');
    var s = 0;
    while (s < a.length && s < b.length && a[s] === b[s]) s++;
    var e = 0;
    while (e < a.length - s && e < b.length - s && a[a.length - 1 - e] === b[b.length - 1 - e]) e++;
    var lines = [];
    for (var i = Math.max(0, s - 2); i < s; i++) lines.push('       ' + a[i]);
    for (var j = s; j < a.length - e; j++) lines.push('      -' + a[j]);
    for (var k = s; k < b.length - e; k++) lines.push('      +' + b[k]);
    for (var l = a.length - e; l < Math.min(a.length, a.length - e + 2); l++) lines.push('       ' + a[l]);
    if (lines.length) diff = '\n\n      + expected - actual\n\n' + lines.join('\n') + '\n';
  }
  var text = '     ' + msg + diff + (stack ? '\n' + stack.replace(/^/gm, '  ').replace(/\s+$/, '') : '');
  return { message: message || msg, text: text.replace(/\s+$/, '') };
}

module.exports = AgentFixReporter;
