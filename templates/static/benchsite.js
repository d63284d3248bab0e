// benchsite: sortable tables and charts. The pages read fully without it.
(function () {
  'use strict';
  var script = document.currentScript;
  var assets = script ? script.src.replace(/benchsite\.js(\?.*)?$/, '') : '';

  function sortKey(cell) {
    var value = cell.getAttribute('data-sort');
    return value === null ? cell.textContent.trim() : value;
  }

  function sortTable(table, column, numeric, ascending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[column]);
      var y = sortKey(b.cells[column]);
      if (numeric) {
        var fx = parseFloat(x);
        var fy = parseFloat(y);
        // Missing values go last either way.
        if (isNaN(fx) || isNaN(fy)) { return (isNaN(fx) ? 1 : 0) - (isNaN(fy) ? 1 : 0); }
        return ascending ? fx - fy : fy - fx;
      }
      var order = x.localeCompare(y, undefined, { numeric: true });
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.textContent = th.textContent;
      button.title = 'Sort by ' + th.textContent;
      th.textContent = '';
      th.appendChild(button);
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        sortTable(table, column, th.classList.contains('num'), ascending);
      });
    });
  }

  var charts = [];
  var dark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function drawCharts() {
    charts.forEach(function (chart) { chart.dispose(); });
    charts = [];
    document.querySelectorAll('figure.chart').forEach(function (figure) {
      var data = figure.querySelector('script[type="application/json"]');
      var box = figure.querySelector('.chart-box');
      if (!data || !box) { return; }
      var option = JSON.parse(data.textContent);
      option.backgroundColor = 'transparent';
      var chart = window.echarts.init(box, dark && dark.matches ? 'dark' : null);
      chart.setOption(option);
      charts.push(chart);
      var details = figure.querySelector('details.chart-data');
      if (details) { details.open = false; }
    });
  }

  function loadCharts() {
    if (!document.querySelector('figure.chart')) { return; }
    var loader = document.createElement('script');
    loader.src = assets + 'echarts.min.js';
    loader.onload = function () {
      drawCharts();
      if (dark && dark.addEventListener) { dark.addEventListener('change', drawCharts); }
      window.addEventListener('resize', function () {
        charts.forEach(function (chart) { chart.resize(); });
      });
    };
    document.head.appendChild(loader);
  }

  function start() {
    document.querySelectorAll('table.sortable').forEach(makeSortable);
    loadCharts();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
