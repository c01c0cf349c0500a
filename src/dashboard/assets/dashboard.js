// The dashboard's only script (CSP: script-src 'self'). Every page works without it; it adds
// the copy buttons, the confirmations and the charts. Times are written once, in UTC, by the
// server; the charts say them the same way (ISO dates, a 24-hour clock).
(function () {
  'use strict';

  function copyButtons() {
    document.querySelectorAll('[data-copy]').forEach(function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var source = document.getElementById(button.getAttribute('data-copy'));
        if (!source) return;
        var text = source.value !== undefined ? source.value : source.textContent;
        var status = document.getElementById(button.getAttribute('data-copy') + '-status');
        navigator.clipboard.writeText(text).then(
          function () {
            if (status) status.textContent = 'Copied to the clipboard.';
          },
          function () {
            if (source.select) source.select();
            if (status) status.textContent = 'Select the key and copy it (Ctrl+C).';
          },
        );
      });
    });
  }

  function confirmations() {
    document.querySelectorAll('form[data-confirm]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
      });
    });
  }

  // The time axis as 14:00 (hours, the date at midnight) or 2026-11-25 (days): uPlot's own
  // labels are US style (11/24, 12:00 AM).
  function axisTimes(u, splits, axisIdx, space, incr) {
    var hour = window.uPlot.fmtDate('{HH}:{mm}');
    var date = window.uPlot.fmtDate('{YYYY}-{MM}-{DD}');
    return splits.map(function (ts) {
      var at = window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');
      if (incr >= 86400) return date(at);
      return at.getHours() === 0 && at.getMinutes() === 0 ? date(at) + '\n' + hour(at) : hour(at);
    });
  }

  // Stacked bars: each series is drawn as the running sum of itself and those after it, the
  // largest first, so every class shows as its own band.
  function charts() {
    if (typeof window.uPlot !== 'function') return;
    var plots = [];
    document.querySelectorAll('script.chart-data').forEach(function (node) {
      var spec = JSON.parse(node.textContent);
      var target = document.getElementById(spec.target);
      if (!target) return;
      var xs = spec.x.map(function (ms) {
        return ms / 1000;
      });
      var stacked = [];
      var running = xs.map(function () {
        return 0;
      });
      for (var i = spec.series.length - 1; i >= 0; i--) {
        running = running.map(function (v, j) {
          return v + spec.series[i].values[j];
        });
        stacked.unshift(running.slice());
      }
      var bars = window.uPlot.paths.bars({ size: [0.8, 64] });
      var width = Math.max(280, target.clientWidth || 600);
      var opts = {
        width: width,
        height: 240,
        // The captions and tables say UTC: the axis does too, whatever the viewer's zone.
        tzDate: function (ts) {
          return window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');
        },
        scales: { x: { time: true }, y: { range: [0, null] } },
        axes: [{ values: axisTimes, space: 100 }, { size: 60 }],
        legend: { live: true },
        series: [{ label: 'Time (UTC)', value: '{YYYY}-{MM}-{DD} {HH}:{mm}' }].concat(
          spec.series.map(function (s) {
            return {
              label: s.label,
              fill: s.color,
              stroke: s.color,
              width: 0,
              paths: bars,
              points: { show: false },
              value: function (u, v, si, di) {
                return di === null || di === undefined ? '—' : String(s.values[di]);
              },
            };
          }),
        ),
      };
      target.textContent = '';
      plots.push({ plot: new window.uPlot(opts, [xs].concat(stacked), target), target: target });
    });
    // A phone turned on its side, or a window made narrower: each chart takes the new width.
    var pending = false;
    window.addEventListener('resize', function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        plots.forEach(function (p) {
          p.plot.setSize({ width: Math.max(280, p.target.clientWidth || 600), height: 240 });
        });
      });
    });
  }

  function start() {
    copyButtons();
    confirmations();
    charts();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
