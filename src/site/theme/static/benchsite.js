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

  // Filters: each select names a row attribute (data-model, data-spec, ...); the choices
  // live in the URL's query, so a link shows the same rows.
  function makeFilterable(form) {
    var figure = form.closest('figure');
    var table = figure && figure.querySelector('table');
    if (!table || !table.tBodies.length) { return; }
    var selects = Array.prototype.slice.call(form.querySelectorAll('select'));
    var count = form.querySelector('.filter-count');
    var params = new URLSearchParams(window.location.search);
    // A value is matched as its slug too, so ?model=Qwen3.6-35B-A3B finds qwen3-6-35b-a3b.
    function slug(text) {
      return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    }
    selects.forEach(function (select) {
      var wanted = params.get(select.name);
      if (wanted === null) { return; }
      [wanted, slug(wanted)].some(function (value) {
        if (!select.querySelector('option[value="' + CSS.escape(value) + '"]')) { return false; }
        select.value = value;
        return true;
      });
    });

    function apply(updateUrl) {
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      var shown = 0;
      rows.forEach(function (row) {
        var match = selects.every(function (select) {
          return select.value === '' || row.getAttribute('data-' + select.name) === select.value;
        });
        row.hidden = !match;
        if (match) { shown += 1; }
      });
      if (count) { count.textContent = 'Showing ' + shown + ' of ' + rows.length + ' rows'; }
      if (updateUrl) {
        var url = new URL(window.location.href);
        selects.forEach(function (select) {
          if (select.value === '') { url.searchParams.delete(select.name); }
          else { url.searchParams.set(select.name, select.value); }
        });
        window.history.replaceState(null, '', url.pathname + url.search + url.hash);
      }
    }

    form.addEventListener('change', function () { apply(true); });
    form.addEventListener('reset', function () {
      window.setTimeout(function () { apply(true); }, 0);
    });
    form.addEventListener('submit', function (event) { event.preventDefault(); });
    form.hidden = false;
    apply(false);
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
      var save = option.toolbox && option.toolbox.feature && option.toolbox.feature.saveAsImage;
      if (save) {
        // The PNG is named for the chart and keeps the page's background, light or dark.
        save.name = figure.getAttribute('data-name') || 'chart';
        save.backgroundColor = window.getComputedStyle(document.body).backgroundColor;
      }
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

  // The search page: Pagefind's UI over the index the build wrote, searching for the query
  // of the header's box (?q=).
  function startSearch() {
    var box = document.getElementById('search');
    if (!box || !window.PagefindUI) { return; }
    var ui = new window.PagefindUI({
      element: '#search',
      bundlePath: box.getAttribute('data-bundle'),
      baseUrl: box.getAttribute('data-base'),
      showSubResults: true,
      showImages: false,
      resetStyles: false,
    });
    var input = box.querySelector('input');
    if (input) { input.setAttribute('aria-label', 'Search the report'); }
    var query = new URLSearchParams(window.location.search).get('q');
    if (query) { ui.triggerSearch(query); }
  }

  function start() {
    document.querySelectorAll('table.sortable').forEach(makeSortable);
    document.querySelectorAll('form.filters').forEach(makeFilterable);
    loadCharts();
  }

  window.addEventListener('load', startSearch);

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
