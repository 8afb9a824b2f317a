/**
 * The script of load.html, run in the browser with uPlot (inlined beside it). Plain ES2017 text:
 * it is never compiled, only embedded, so it must not depend on anything the page lacks.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var doc = JSON.parse(document.getElementById('load-data').textContent);
  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  function color(i) { return COLORS[i % COLORS.length]; }
  function box(id) { return document.getElementById(id); }
  function widthOf(node) { return Math.max(420, Math.min(1300, node.clientWidth || 900)); }
  // A legend names its series; the values under the pointer show only while it is over the chart
  // (at rest uPlot would print "--" for each, which reads as a missing name on a static page).
  function atRest(u) { u.root.classList.toggle('at-rest', u.cursor.idx == null); }
  function plot(id, opts, data) {
    var node = box(id);
    if (!node) return;
    opts.width = widthOf(node);
    opts.height = opts.height || 280;
    opts.hooks = { setLegend: [atRest], setCursor: [atRest] };
    var u = new uPlot(opts, data, node);
    u.root.classList.add('at-rest');
  }
  function positive(v) { return v > 0 ? v : null; }
  function line(label, i, extra) {
    // Dots as well as lines: a short run has only a point or two per series.
    var s = { label: label, stroke: color(i), width: 2, spanGaps: true, points: { show: true, size: 5 } };
    for (var k in (extra || {})) s[k] = extra[k];
    return s;
  }
  var results = doc.results || [];

  // Latency by percentile: x is the number of nines, so the tail gets the room it deserves.
  (function () {
    var curves = [];
    results.forEach(function (r) { if (r.curve && r.curve.length) curves.push({ label: r.scenario, curve: r.curve }); });
    results.forEach(function (r) { if (r.events && r.events.curve && r.events.curve.length) curves.push({ label: r.scenario + ' (event delivery)', curve: r.events.curve }); });
    if (!curves.length) return;
    var nines = function (p) { return p >= 100 ? 5 : Math.min(5, -Math.log10(1 - p / 100)); };
    var xs = curves[0].curve.map(function (pt) { return nines(pt.percentile); });
    var data = [xs].concat(curves.map(function (c) { return c.curve.map(function (pt) { return positive(pt.ms); }); }));
    plot('chart-percentiles', {
      title: 'Latency by percentile (ms, log scale)',
      scales: { x: { time: false, range: [0, 5] }, y: { distr: 3 } },
      axes: [
        { label: 'percentile', splits: function () { return [0, 1, 2, 3, 4, 5]; }, values: ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%'] },
        { label: 'ms', size: 70 }
      ],
      series: [{ label: 'percentile', value: function (u, v) { return v == null ? '' : (Math.round((100 - 100 * Math.pow(10, -v)) * 1000) / 1000) + '%'; } }]
        .concat(curves.map(function (c, i) { return line(c.label, i); }))
    }, data);
  })();

  // Per-second series of every scenario on one time axis (seconds since the scenario started).
  function timeChart(id, title, yLabel, pick, log) {
    var withSeries = results.filter(function (r) { return r.series && r.series.length; });
    if (!withSeries.length) return;
    var tables = withSeries.map(function (r) { return [r.series.map(function (p) { return p.t; }), r.series.map(function (p) { var v = pick(p); return log ? positive(v) : v; })]; });
    plot(id, {
      title: title,
      scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
      axes: [{ label: 's since the scenario started' }, { label: yLabel, size: 70 }],
      series: [{ label: 's' }].concat(withSeries.map(function (r, i) { return line(r.scenario, i); }))
    }, uPlot.join(tables));
  }
  timeChart('chart-throughput', 'Throughput over time (requests/s)', 'requests/s', function (p) { return p.requestsPerSecond; }, false);
  timeChart('chart-latency', 'p99 latency over time (ms, log scale)', 'ms', function (p) { return p.p99; }, true);

  // Capacity search and ramps: offered rate against p99, step by step.
  results.forEach(function (r, n) {
    var steps = r.capacity ? r.capacity.steps.map(function (s) { return { rate: s.rate, p99: s.p99, ok: s.sustained }; })
      : (r.steps && r.steps.length > 1 ? r.steps.map(function (s) { return { rate: s.rate, p99: s.latency.p99, ok: null }; }) : null);
    if (!steps) return;
    var xs = steps.map(function (_, i) { return i + 1; });
    var series = [
      { label: 'step' },
      line('offered requests/s', 0, { scale: 'rate' }),
      line('p99 ms', 1, { scale: 'ms' })
    ];
    var data = [xs, steps.map(function (s) { return s.rate; }), steps.map(function (s) { return positive(s.p99); })];
    if (r.capacity && r.capacity.p99BoundMs !== undefined) {
      series.push(line('p99 bound ms', 7, { scale: 'ms', dash: [6, 4], points: { show: false } }));
      data.push(steps.map(function () { return r.capacity.p99BoundMs; }));
    }
    plot('chart-steps-' + n, {
      title: (r.capacity ? 'Capacity search: ' : 'Ramp: ') + r.scenario,
      scales: { x: { time: false }, rate: {}, ms: { distr: 3 } },
      axes: [{ label: 'step', incrs: [1, 2, 5, 10, 20] }, { scale: 'rate', label: 'requests/s', size: 70 }, { scale: 'ms', side: 1, label: 'p99 ms', size: 70, grid: { show: false } }],
      series: series
    }, data);
  });

  // Event delivery over time.
  results.forEach(function (r, n) {
    if (!r.events || !r.events.series || !r.events.series.length) return;
    var s = r.events.series;
    plot('chart-events-' + n, {
      title: 'Event delivery latency over time: ' + r.scenario + ' (ms, log scale)',
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ label: 's since the writes started' }, { label: 'ms', size: 70 }],
      series: [{ label: 's' }, line('p50', 2), line('p99', 1)]
    }, [s.map(function (p) { return p.t; }), s.map(function (p) { return positive(p.p50); }), s.map(function (p) { return positive(p.p99); })]);
  });

  // Soak windows.
  results.forEach(function (r, n) {
    if (!r.windows || r.windows.length < 2) return;
    var w = r.windows;
    plot('chart-windows-' + n, {
      title: 'Soak windows: ' + r.scenario + ' (ms)',
      scales: { x: { time: false } },
      axes: [{ label: 'window start, s' }, { label: 'ms', size: 70 }],
      series: [{ label: 's' }, line('p50', 2), line('p99', 1)]
    }, [w.map(function (x) { return x.startS; }), w.map(function (x) { return x.latency.p50; }), w.map(function (x) { return x.latency.p99; })]);
  });
})();
`;
