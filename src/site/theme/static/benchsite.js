// benchsite: sortable tables, filters, charts, the trade-offs' limits and search. The pages
// read fully without it.
(function () {
  'use strict';
  var script = document.currentScript;
  var assets = script ? script.src.replace(/benchsite\.js(\?.*)?$/, '') : '';

  function sortKey(cell) {
    var value = cell.getAttribute('data-sort');
    return value === null ? cell.textContent.trim() : value;
  }

  // Every table's rows, in the order shown, and the filter's choice of them. A paged table
  // (data-src, site::paging) holds its first page in the HTML and every row in data files
  // beside its page, fetched a file at a time as the reader pages, and all of them when the
  // reader sorts, filters, or follows a link to a row not yet shown.
  var controls = [];
  var pageRows = 50;

  function control(table) {
    for (var i = 0; i < controls.length; i += 1) {
      if (controls[i].table === table) { return controls[i]; }
    }
    var c = {
      table: table,
      all: Array.prototype.slice.call(table.tBodies[0].rows),
      paged: table.hasAttribute('data-src'),
      match: null,
      page: 0,
      chunks: [],
      loading: null
    };
    c.loaded = !c.paged;
    c.total = c.paged ? parseInt(table.getAttribute('data-rows'), 10) : c.all.length;
    controls.push(c);
    if (c.paged) { makePager(c); }
    return c;
  }

  function fetchJson(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) { throw new Error(url + ': HTTP ' + response.status); }
      return response.json();
    });
  }

  function parseRows(html) {
    var holder = document.createElement('table');
    holder.innerHTML = '<tbody>' + html + '</tbody>';
    return Array.prototype.slice.call(holder.tBodies[0].rows);
  }

  // The rows of data file k (from 0) of a paged table.
  function chunk(c, k) {
    if (!c.chunks[k]) {
      c.chunks[k] = fetchJson(c.table.getAttribute('data-src') + '.' + (k + 1) + '.rows.json')
        .then(function (data) { return parseRows(data.rows.join('')); });
    }
    return c.chunks[k];
  }

  // Every row of the table, fetched once.
  function loadAll(c) {
    if (c.loaded) { return Promise.resolve(c); }
    if (!c.loading) {
      var parts = [];
      var n = parseInt(c.table.getAttribute('data-chunks'), 10);
      for (var k = 0; k < n; k += 1) { parts.push(chunk(c, k)); }
      status(c, 'Loading ' + count(c.total) + ' rows…');
      c.loading = Promise.all(parts).then(function (loaded) {
        c.all = [].concat.apply([], loaded);
        c.loaded = true;
        return c;
      }).catch(function (error) {
        c.loading = null;
        status(c, 'The rows could not be loaded (' + error.message + '); every row is in the CSV.');
        throw error;
      });
    }
    return c.loading;
  }

  function status(c, text) {
    var out = c.pager && c.pager.querySelector('.pager-count');
    if (out) { out.textContent = text; }
  }

  // The rows the filter lets through, in the order shown.
  function chosen(c) {
    return c.match ? c.all.filter(c.match) : c.all;
  }

  // Shows the table's rows: a short table hides those the filter does not choose; a paged
  // one shows its page of them.
  function show(c) {
    if (!c.paged) {
      c.all.forEach(function (row) { row.hidden = Boolean(c.match) && !c.match(row); });
      return Promise.resolve(c);
    }
    var start = c.page * pageRows;
    var rows;
    if (c.loaded) {
      var all = chosen(c);
      rows = Promise.resolve({ rows: all.slice(start, start + pageRows), of: all.length });
    } else {
      var size = parseInt(c.table.getAttribute('data-chunk'), 10);
      var first = Math.floor(start / size);
      var last = Math.floor((Math.min(start + pageRows, c.total) - 1) / size);
      var parts = [];
      for (var k = first; k <= last; k += 1) { parts.push(chunk(c, k)); }
      rows = Promise.all(parts).then(function (loaded) {
        var from = start - first * size;
        return { rows: [].concat.apply([], loaded).slice(from, from + pageRows), of: c.total };
      });
    }
    return rows.then(function (page) {
      c.table.tBodies[0].replaceChildren.apply(c.table.tBodies[0], page.rows);
      var to = start + page.rows.length;
      status(c, (page.of === 0 ? 'No rows' : 'Rows ' + count(page.of ? start + 1 : 0) + '–' + count(to) + ' of ' + count(page.of)) +
        (page.of !== c.total ? ' (' + count(c.total) + ' in all)' : ''));
      c.previous.disabled = c.page === 0;
      c.next.disabled = to >= page.of;
      return c;
    });
  }

  // The table's rows replaced by `html` (rows the page's script worked out).
  function setRows(table, html) {
    var c = control(table);
    c.all = parseRows(html);
    c.loaded = true;
    c.total = c.all.length;
    c.page = 0;
    if (!c.paged) { table.tBodies[0].replaceChildren.apply(table.tBodies[0], c.all); }
    return show(c);
  }

  function makePager(c) {
    var figure = c.table.closest('figure');
    c.pager = figure && figure.querySelector('p.pager');
    if (!c.pager) { return; }
    function button(text, step) {
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.addEventListener('click', function () {
        c.page = Math.max(0, c.page + step);
        show(c).then(function () {
          // The page's first row in view, not the pager it moved.
          var top = c.table.getBoundingClientRect().top;
          if (top < 0) { c.table.scrollIntoView(); }
        }).catch(function () {});
      });
      return b;
    }
    c.previous = button('‹ Previous', -1);
    c.next = button('Next ›', 1);
    c.pager.appendChild(c.previous);
    c.pager.appendChild(c.next);
    show(c).catch(function () {});
  }

  // A link to a row on a later page of a paged table shows that page.
  function showLinkedRow() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id || document.getElementById(id)) { return; }
    controls.filter(function (c) { return c.paged; }).forEach(function (c) {
      loadAll(c).then(function () {
        var index = chosen(c).findIndex(function (row) { return row.id === id; });
        if (index < 0) { return null; }
        c.page = Math.floor(index / pageRows);
        return show(c).then(function () {
          // Marked as :target would mark it, had it been in the page when it loaded.
          var row = document.getElementById(id);
          row.classList.add('linked');
          row.scrollIntoView();
        });
      }).catch(function () {});
    });
  }

  function sortTable(table, column, numeric, ascending) {
    var c = control(table);
    return loadAll(c).then(function () {
      c.all.sort(function (a, b) {
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
      if (!c.paged) {
        c.all.forEach(function (row) { table.tBodies[0].appendChild(row); });
      }
      c.page = 0;
      return show(c);
    });
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    control(table);
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
        sortTable(table, column, th.classList.contains('num'), ascending).catch(function () {});
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
    var shownCount = form.querySelector('.filter-count');
    var params = new URLSearchParams(window.location.search);
    // A value is matched as its slug too, so ?model=Qwen3.6-35B-A3B finds qwen3-6-35b-a3b.
    function slug(text) {
      return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    }
    // A value the URL asks for that no row has is said, not ignored.
    var unknown = [];
    selects.forEach(function (select) {
      var wanted = params.get(select.name);
      if (wanted === null) { return; }
      var found = [wanted, slug(wanted)].some(function (value) {
        if (!select.querySelector('option[value="' + CSS.escape(value) + '"]')) { return false; }
        select.value = value;
        return true;
      });
      if (!found) {
        var label = select.closest('label').firstChild.textContent.trim().toLowerCase();
        unknown.push('no row has ' + label + ' “' + wanted + '”');
      }
    });

    var c = control(table);

    function apply(updateUrl) {
      var any = selects.some(function (select) { return select.value !== ''; });
      c.match = any ? function (row) {
        return selects.every(function (select) {
          return select.value === '' || row.getAttribute('data-' + select.name) === select.value;
        });
      } : null;
      c.page = 0;
      // A paged table is filtered over every row, fetched when a filter is first chosen.
      var ready = any || c.loaded ? loadAll(c) : Promise.resolve(c);
      ready.then(function () {
        if (shownCount) {
          shownCount.textContent = (c.match ? count(chosen(c).length) + ' of ' + count(c.total) + ' rows match'
            : 'All ' + count(c.total) + ' rows') + (unknown.length ? '; ' + unknown.join('; ') : '');
        }
        filterCharts();
        return show(c);
      }).catch(function () {});
      if (updateUrl) {
        var url = new URL(window.location.href);
        selects.forEach(function (select) {
          if (select.value === '') { url.searchParams.delete(select.name); }
          else { url.searchParams.set(select.name, select.value); }
        });
        window.history.replaceState(null, '', url.pathname + url.search + url.hash);
      }
    }

    form.addEventListener('change', function () { unknown = []; apply(true); });
    form.addEventListener('reset', function () {
      window.setTimeout(function () { apply(true); }, 0);
    });
    form.addEventListener('submit', function (event) { event.preventDefault(); });
    form.hidden = false;
    apply(false);
  }

  var charts = [];
  var dark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  // The series colours, the same hues in both schemes, each at least 4:1 against its page's
  // background (WCAG's non-text contrast asks 3:1; ECharts' own palette has five colours
  // under it on white, and #505372 at 2.4:1 on the dark page).
  var PALETTE = {
    light: ['#4e6fd8', '#2f8f3a', '#c2410c', '#7c3aed', '#0e7490', '#a16207', '#db2777', '#4b5563', '#dc2626'],
    dark: ['#7b93ef', '#a3d65c', '#fb923c', '#c4b5fd', '#38bdf8', '#facc15', '#f472b6', '#cbd5e1', '#f87171']
  };

  // A chart's option: in the page, or (a long one) in a file beside it, fetched once.
  function optionOf(figure) {
    if (!figure.benchsiteText) {
      var data = figure.querySelector('script[type="application/json"]');
      var box = figure.querySelector('.chart-box');
      var src = box && box.getAttribute('data-option');
      figure.benchsiteText = data ? Promise.resolve(data.textContent)
        : src ? fetch(src).then(function (response) {
          if (!response.ok) { throw new Error(src + ': HTTP ' + response.status); }
          return response.text();
        }) : Promise.resolve(null);
    }
    return figure.benchsiteText;
  }

  function drawCharts() {
    charts.forEach(function (chart) { chart.dispose(); });
    charts = [];
    var figures = Array.prototype.slice.call(document.querySelectorAll('figure.chart'));
    return Promise.all(figures.map(function (figure) {
      return optionOf(figure).then(function (text) { if (text) { drawChart(figure, text); } }, function (error) {
        var box = figure.querySelector('.chart-box');
        if (box) { box.textContent = 'The chart could not be loaded (' + error.message + '); its data is in the table ' + (figure.querySelector('.data-in') ? 'it names' : 'below') + '.'; }
      });
    }));
  }

  function drawChart(figure, text) {
    var box = figure.querySelector('.chart-box');
    var option = JSON.parse(text);
    option.backgroundColor = 'transparent';
    option.color = option.color || PALETTE[dark && dark.matches ? 'dark' : 'light'];
    // Every chart saves as a PNG; an option may bring its own toolbox.
    option.toolbox = option.toolbox || {
      right: 10,
      feature: { saveAsImage: { type: 'png', pixelRatio: 2, title: 'Save as PNG' } }
    };
    var save = option.toolbox.feature && option.toolbox.feature.saveAsImage;
    if (save) {
      // The PNG is named for the chart and keeps the page's background, light or dark.
      save.name = figure.getAttribute('data-name') || 'chart';
      save.backgroundColor = window.getComputedStyle(document.body).backgroundColor;
    }
    var extra = option.benchsite || {};
    if (extra.units) {
      option.tooltip = option.tooltip || {};
      option.tooltip.formatter = function (p) {
        var v = p.value || [];
        return escapeHtml(p.name || p.seriesName) + '<br>' + shown(v[0]) + ' ' + extra.units[0] +
          ', ' + shown(v[1]) + ' ' + extra.units[1];
      };
    }
    if (extra.concurrency) {
      // A line against concurrency: which line, at which concurrency, the value and its unit.
      option.tooltip = option.tooltip || {};
      option.tooltip.formatter = function (p) {
        var v = p.value || [];
        return escapeHtml(p.seriesName) + '<br>concurrency ' + count(v[0]) + ': ' + shown(v[1]) + ' ' +
          escapeHtml(extra.concurrency);
      };
    }
    if (extra.rate) {
      // A line against open-loop arrival rates: which line, at which rate, the value and its unit.
      option.tooltip = option.tooltip || {};
      option.tooltip.formatter = function (p) {
        var v = p.value || [];
        return escapeHtml(p.seriesName) + '<br>' + String(v[0]) + ' req/s: ' + shown(v[1]) + ' ' +
          escapeHtml(extra.rate);
      };
    }
    if (box.clientWidth < 600 && (option.series || []).some(function (s) { return s.type === 'heatmap'; })) {
      narrowHeatmap(box, option);
    }
    fitLegend(box, option);
    var chart = window.echarts.init(box, dark && dark.matches ? 'dark' : null);
    figure.benchsiteOption = withLimits(option);
    figure.benchsiteChart = chart;
    chart.setOption(frontierOnly(figure) ? onlyFrontier(option) : option);
    // A point or bar that names a record page opens it.
    chart.on('click', function (p) {
      if (p.data && p.data.url) { window.location.href = p.data.url; }
    });
    charts.push(chart);
    var details = figure.querySelector('details.chart-data');
    if (details) { details.open = false; }
  }

  // A legend never truncates or pages: it wraps into as many rows as its names need at the
  // box's width (ECharts lays a plain legend out in rows of items 25 px of symbol, 5 of gap,
  // the name in 12 px type and 10 between items), and the grid and the box grow by the rows
  // past the first.
  function fitLegend(box, option) {
    var legend = option.legend;
    if (!legend || Array.isArray(legend) || legend.show === false) { return; }
    var names = [];
    (option.series || []).forEach(function (s) {
      if (s.name && s.type !== 'heatmap' && names.indexOf(s.name) < 0) { names.push(s.name); }
    });
    var measure = document.createElement('canvas').getContext('2d');
    measure.font = '12px sans-serif';
    legend.type = 'plain';
    legend.left = 10;
    legend.right = 10;
    var width = box.clientWidth - 30;
    var rows = 1;
    var x = 0;
    names.forEach(function (name) {
      var item = 25 + 5 + Math.ceil(measure.measureText(name).width) + 10;
      if (x > 0 && x + item > width) { rows += 1; x = 0; }
      x += item;
    });
    var extra = (rows - 1) * 24;
    if (extra === 0) { return; }
    var grids = Array.isArray(option.grid) ? option.grid : [option.grid];
    grids.forEach(function (grid) {
      if (grid && typeof grid.bottom === 'number') { grid.bottom += extra; }
    });
    box.style.height = (box.clientHeight + extra) + 'px';
  }

  // A heatmap on a phone: row names wrap over two lines in a third of the width, the
  // categories stand upright, and the cells keep their colour but not their numbers (a tap
  // shows one; the table below has them all). The box grows to fit the taller rows.
  function narrowHeatmap(box, option) {
    var rows = option.yAxis && option.yAxis.data ? option.yAxis.data.length : 0;
    option.yAxis.axisLabel = { width: Math.round(box.clientWidth * 0.36), overflow: 'break', fontSize: 10, lineHeight: 12 };
    option.xAxis.axisLabel = { rotate: 90, interval: 0, fontSize: 10 };
    option.grid = { left: 0, right: 8, top: 34, bottom: 60, outerBoundsMode: 'same', outerBoundsContain: 'all' };
    option.series.forEach(function (s) { if (s.type === 'heatmap') { s.label = { show: false }; } });
    box.style.height = (150 + 40 * rows) + 'px';
  }

  // The index of the column of `table` headed `name`, or -1.
  function headed(table, name) {
    if (!table) { return -1; }
    return Array.prototype.findIndex.call(table.querySelectorAll('thead th'), function (th) {
      return th.textContent.trim() === name;
    });
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  // A number as the build writes it (format::figure): its shortest form, ".0" on a whole
  // number, the integer part grouped by thousands from five digits.
  function shown(value) {
    if (value === null || value === undefined || isNaN(value)) { return '—'; }
    var text = String(value);
    if (/e/.test(text)) { text = value.toFixed(12).replace(/0+$/, ''); }
    if (text.indexOf('.') < 0) { text += '.0'; }
    var parts = text.split('.');
    var sign = parts[0].charAt(0) === '-' ? '-' : '';
    var int = parts[0].replace('-', '');
    if (int.length > 4) { int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
    return sign + int + '.' + parts[1];
  }

  // A whole number as the build writes it (format::count): grouped by thousands.
  function count(value) {
    var text = String(value);
    return text.length > 3 ? text.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : text;
  }

  function round(value, digits) {
    var scale = Math.pow(10, digits);
    return Math.round(value * scale) / scale;
  }

  // The "frontier only" toggle of the section a chart is in.
  function frontierOnly(figure) {
    var section = figure.closest('section.tradeoffs');
    var box = section && section.querySelector('input[name="frontier-only"]');
    return Boolean(box && box.checked && (figure.benchsiteOption.benchsite || {}).frontier);
  }

  function onlyFrontier(option) {
    var copy = JSON.parse(JSON.stringify(option));
    copy.tooltip.formatter = option.tooltip.formatter;
    copy.series.forEach(function (series) {
      if (series.type === 'scatter') {
        series.data = series.data.filter(function (point) { return point.frontier; });
      }
    });
    return copy;
  }

  // The limits the frontier charts follow once the reader changes them: whether each level
  // (by its URL) is within them, the least tok/s per user they ask, and them in words.
  var frontierLimits = null;

  // A frontier chart's option as the limits have it: each point grey beyond them, and the
  // dotted line at the per-user limit, kept in view.
  function withLimits(option) {
    var extra = option.benchsite || {};
    if (!frontierLimits || !extra.frontier) { return option; }
    option.series.forEach(function (s) {
      if (s.type !== 'scatter') { return; }
      s.data.forEach(function (p) {
        var within = frontierLimits.within[p.url];
        if (within === undefined) { return; }
        p.within = within;
        if (within) { delete p.itemStyle; } else { p.itemStyle = { color: extra.beyond }; }
      });
    });
    var perUser = frontierLimits.perUser;
    option.series.forEach(function (s) {
      if (!s.markLine) { return; }
      s.markLine.data = perUser > 0 ?
        [{ xAxis: perUser, label: { formatter: 'limit: ' + String(perUser) + ' tok/s per user', position: 'insideEndTop' } }] : [];
    });
    // The axis reaches the line where every point is short of it.
    if (perUser > 0) {
      option.xAxis.max = function (range) { return range.max >= perUser ? null : Math.ceil(perUser * 11 / 10); };
    } else { delete option.xAxis.max; }
    return option;
  }

  // Redraw every drawn frontier chart at the limits of `frontierLimits`.
  function redrawFrontiers() {
    document.querySelectorAll('section.tradeoffs figure.chart').forEach(function (figure) {
      var chart = figure.benchsiteChart;
      if (!chart || !(figure.benchsiteOption.benchsite || {}).frontier) { return; }
      var option = withLimits(figure.benchsiteOption);
      chart.setOption(frontierOnly(figure) ? onlyFrontier(option) : option, true);
    });
    document.querySelectorAll('.f-limits').forEach(function (span) { span.textContent = frontierLimits.words; });
  }

  function startFrontierToggle() {
    document.querySelectorAll('label.frontier-only').forEach(function (label) {
      var box = label.querySelector('input');
      label.hidden = false;
      box.checked = new URLSearchParams(window.location.search).get('frontier') === 'only';
      box.addEventListener('change', function () {
        label.closest('section').querySelectorAll('figure.chart').forEach(function (figure) {
          var chart = figure.benchsiteChart;
          if (!chart) { return; }
          chart.setOption(frontierOnly(figure) ? onlyFrontier(figure.benchsiteOption) : figure.benchsiteOption, true);
        });
        var url = new URL(window.location.href);
        if (box.checked) { url.searchParams.set('frontier', 'only'); } else { url.searchParams.delete('frontier'); }
        window.history.replaceState(null, '', url.pathname + url.search + url.hash);
      });
    });
  }

  // The series of every chart of the page that the filtered table hides, by the label in
  // its rows' first cell (a sweep's label names its series).
  function filterCharts() {
    var shown = {};
    var hidden = {};
    controls.forEach(function (c) {
      if (!c.table.closest('figure:has(form.filters)') || !c.loaded) { return; }
      c.all.forEach(function (row) {
        var name = row.cells[0].textContent.trim();
        (c.match && !c.match(row) ? hidden : shown)[name] = true;
      });
    });
    charts.forEach(function (chart) {
      (chart.getOption().series || []).forEach(function (series) {
        if (hidden[series.name]) { chart.dispatchAction({ type: 'legendUnSelect', name: series.name }); }
        else if (shown[series.name]) { chart.dispatchAction({ type: 'legendSelect', name: series.name }); }
      });
    });
  }

  // A level's load: its concurrency (`c`), or an open loop's arrival rate (`r`), in requests
  // per second; where it sits on its axis, its text in a table and its anchor (`c8`, `r2_5`).
  function loadAt(l) { return l.r !== undefined ? l.r : l.c; }
  function loadText(l) { return l.r !== undefined ? String(l.r) + ' req/s' : count(l.c); }
  function loadAnchor(l) { return l.r !== undefined ? 'r' + String(l.r).replace('.', '_') : 'c' + l.c; }

  // Within limits: the highest load of each sweep whose level has no failed request
  // and holds every limit, its throughput per GPU and cost, and each model's best; the same
  // rules as the build's (site::pages::tradeoffs), so the page shows what it showed
  // without a script until a limit or the price changes. The values live in the URL.
  function startLimits() {
    document.querySelectorAll('section#limits').forEach(function (section) {
      var form = section.querySelector('form.limits');
      var inline = section.querySelector('script.levels');
      var data = null;
      // The levels, in the page or (a long report's) in a data file beside it, fetched once.
      function levels() {
        if (data) { return Promise.resolve(data); }
        var got = inline ? Promise.resolve(JSON.parse(inline.textContent)) : fetchJson(section.getAttribute('data-levels'));
        return got.then(function (loaded) { data = loaded; return data; });
      }
      var inputs = Array.prototype.slice.call(form.querySelectorAll('input'));
      var params = new URLSearchParams(window.location.search);
      inputs.forEach(function (input) {
        if (params.has(input.name)) { input.value = params.get(input.name); }
      });

      function cell(text, sort, href) {
        var inner = href ? '<a href="' + escapeHtml(href) + '">' + escapeHtml(text) + '</a>' : escapeHtml(text);
        var numeric = sort !== undefined;
        return '<td' + (numeric ? ' data-sort="' + sort + '"' : '') + '>' + inner + '</td>';
      }

      // The frontier charts grey the levels beyond `bounds` and draw the per-user limit.
      function followLimits(bounds) {
        var within = {};
        data.sweeps.forEach(function (sweep) {
          sweep.levels.forEach(function (l) { within[sweep.url + '#' + loadAnchor(l)] = holdsBounds(l, bounds); });
        });
        var ttft = null;
        var perUser = null;
        var others = [];
        bounds.forEach(function (b) {
          var limit = data.limits.filter(function (f) { return f.key === b[0]; })[0];
          if (b[0] === 'ttft_p95_s') { ttft = b[1]; return; }
          if (b[0] === 'tpot_ms') { perUser = round(1000 / b[1], 2); return; }
          var name = /^[A-Z][a-z]/.test(limit.name) ? limit.name.charAt(0).toLowerCase() + limit.name.slice(1) : limit.name;
          others.push(name + ' ≤ ' + String(b[1]) + ' ' + limit.unit);
        });
        frontierLimits = { within: within, perUser: perUser, words: limitsWords(ttft, perUser, others.join(', ')) };
        redrawFrontiers();
      }

      // Every row of the frontier tables, by id, fetched when the table is paged.
      function frontierRows() {
        var tables = Array.prototype.slice.call(document.querySelectorAll('section#frontier table'));
        return Promise.all(tables.map(function (t) { return loadAll(control(t)); })).then(function (cs) {
          var byId = {};
          cs.forEach(function (c) { c.all.forEach(function (row) { if (row.id) { byId[row.id] = row; } }); });
          return { rows: byId, controls: cs };
        });
      }

      function answer() {
        return levels().then(function () {
          // The frontier tables have a cost column only when the report gives a price.
          var costed = Array.prototype.some.call(document.querySelectorAll('section#frontier table'), function (t) {
            return headed(t, data.columns.cost) >= 0;
          });
          return costed ? frontierRows() : { rows: {}, controls: [] };
        }).then(answerWith).catch(function () {});
      }

      function answerWith(frontier) {
        var bounds = data.limits.map(function (limit) {
          var input = form.querySelector('input[name="' + limit.key + '"]');
          var value = input ? parseFloat(input.value) : NaN;
          return [limit.key, value];
        }).filter(function (b) { return b[1] > 0; });
        followLimits(bounds);
        // The sentence naming the report's default limits goes once the reader sets others.
        var defaults = section.querySelector('.l-defaults');
        if (defaults) {
          defaults.hidden = data.limits.some(function (limit) {
            var input = form.querySelector('input[name="' + limit.key + '"]');
            return input && input.value !== input.defaultValue;
          });
        }
        var price = form.querySelector('input[name="gpu_hour"]');
        var gpuHour = price ? parseFloat(price.value) : NaN;
        var sweepsTable = section.querySelector('.limits-sweeps table');
        var bestTable = section.querySelector('.limits-best table');
        // Without a configured price the tables gain a cost column once the reader gives one.
        if (gpuHour > 0 && headed(sweepsTable, data.columns.cost) < 0) {
          [[sweepsTable, 6], [bestTable, 5]].forEach(function (at) {
            var row = at[0] && at[0].tHead && at[0].tHead.rows[0];
            if (!row) { return; }
            var th = document.createElement('th');
            th.scope = 'col';
            th.className = 'num';
            th.textContent = data.columns.cost;
            row.insertBefore(th, row.cells[at[1]] || null);
          });
        }
        var priced = headed(sweepsTable, data.columns.cost) >= 0;
        var best = {};
        var order = [];
        var energy = headed(sweepsTable, data.columns.energy) >= 0;
        var missing = cell('—', '');
        function extra(cost, level) {
          var html = '';
          if (priced) { html += cost === null ? missing : cell(data.currency + shown(cost), cost); }
          if (energy) {
            html += level === null || level.joules === null ? missing : cell(shown(level.joules), level.joules);
            html += level === null || level.perWatt === null ? missing : cell(shown(level.perWatt), level.perWatt);
          }
          return html;
        }
        function costOf(sweep, level) {
          return gpuHour > 0 && level.total > 0 ? round(gpuHour * sweep.gpus / 3600 / level.total * 1e6, 3) : null;
        }
        var rows = data.sweeps.map(function (sweep) {
          var level = null;
          sweep.levels.forEach(function (l) {
            var ok = holdsBounds(l, bounds);
            if (ok && (level === null || loadAt(l) > loadAt(level))) { level = l; }
          });
          var html = '<tr id="within-' + escapeHtml(sweep.slug) + '">' + cell(sweep.label, undefined, sweep.url) +
            cell(sweep.model) + cell(sweep.workload);
          if (level === null) {
            html += cell('none within') + missing + missing + extra(null, null);
            return html + '</tr>';
          }
          var perGpu = round(level.total / sweep.gpus, 1);
          var cost = costOf(sweep, level);
          html += cell(loadText(level), loadAt(level)) + cell(shown(level.total), level.total) + cell(shown(perGpu), perGpu);
          html += extra(cost, level);
          var key = sweep.model + '\u0000' + sweep.workload;
          if (!(key in best)) { order.push(key); }
          if (!(key in best) || best[key].perGpu < perGpu) {
            best[key] = { sweep: sweep, level: level, perGpu: perGpu, cost: cost };
          }
          return html + '</tr>';
        });
        setRows(section.querySelector('.limits-sweeps table'), rows.join('\n') + '\n');
        setRows(section.querySelector('.limits-best table'), order.map(function (key) {
          var b = best[key];
          return '<tr>' + cell(b.sweep.model, undefined, b.sweep.modelUrl) + cell(b.sweep.label, undefined, b.sweep.url) +
            cell(b.sweep.workload) + cell(loadText(b.level), loadAt(b.level)) + cell(shown(b.perGpu), b.perGpu) +
            extra(b.cost, b.level) + '</tr>';
        }).join('\n') + (order.length ? '\n' : ''));
        // Every level's cost in the frontier tables, at the price given.
        if (priced) {
          data.sweeps.forEach(function (sweep) {
            sweep.levels.forEach(function (level) {
              var row = frontier.rows['level-' + sweep.slug + '-' + loadAnchor(level)];
              var column = row ? headed(row.closest('table'), data.columns.cost) : -1;
              if (column < 0) { return; }
              var cost = costOf(sweep, level);
              row.cells[column].outerHTML = cost === null ? missing : cell(data.currency + shown(cost), cost);
            });
          });
          frontier.controls.forEach(function (c) { show(c).catch(function () {}); });
        }
      }

      function update() {
        answer();
        var url = new URL(window.location.href);
        inputs.forEach(function (input) {
          if (input.value === input.defaultValue || input.value === '') { url.searchParams.delete(input.name); }
          else { url.searchParams.set(input.name, input.value); }
        });
        window.history.replaceState(null, '', url.pathname + url.search + url.hash);
      }

      form.addEventListener('input', update);
      form.addEventListener('reset', function () { window.setTimeout(update, 0); });
      form.addEventListener('submit', function (event) { event.preventDefault(); });
      form.hidden = false;
      section.querySelectorAll('.limits-best table, .limits-sweeps table').forEach(asCards);
      if (inputs.some(function (input) { return params.has(input.name); })) { answer(); }
    });
  }

  // Limits in words, as the build writes them (site::pages::limits): `TTFT p95 ≤ 2 s and at
  // least 20 output tok/s per user`, then `others`, the rest already in words.
  function limitsWords(ttft, perUser, others) {
    var words = [];
    if (ttft > 0) { words.push('TTFT p95 ≤ ' + String(ttft) + ' s'); }
    if (perUser > 0) { words.push('at least ' + String(perUser) + ' output tok/s per user'); }
    if (others) { words.push(others); }
    return words.length ? words.join(' and ') : 'no limit but that every request is answered';
  }

  // Whether a sweep level answered every request, measured its output and holds every bound
  // ([figure key, at most]); a figure it did not measure holds none.
  function holdsBounds(level, bounds) {
    return level.failed === 0 && level.total !== null && bounds.every(function (b) {
      return level[b[0]] !== null && level[b[0]] !== undefined && level[b[0]] <= b[1];
    });
  }

  // A table read as cards on a phone (style.css): each cell labelled with its column's name,
  // again whenever its rows change (answered again, paged, sorted).
  function asCards(table) {
    function label() {
      var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent.trim(); });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          if (names[i] !== undefined && cell.getAttribute('data-label') !== names[i]) { cell.setAttribute('data-label', names[i]); }
        });
      });
    }
    if (!table.tHead || !table.tBodies[0]) { return; }
    label();
    new MutationObserver(label).observe(table, { childList: true, subtree: true });
    table.classList.add('cards');
  }

  // The decision: for a workload and limits, the most output per GPU of each model (or of
  // each configuration, on a model's page) at any level within them, ranked per machine
  // unless the reader ranks across; the same rules as the build's (site::pages::decision),
  // answered again from the data file beside the page when a choice changes. The choices
  // live in the URL.
  function startDecision() {
    document.querySelectorAll('section#decision').forEach(function (section) {
      var details = section.querySelector('details.decision-form');
      var form = section.querySelector('form.decision-limits');
      var src = section.getAttribute('data-decision');
      if (!form || !src) { return; }
      var data = null;
      function load() {
        return data ? Promise.resolve(data) : fetchJson(src).then(function (d) { data = d; return d; });
      }
      var fields = Array.prototype.slice.call(form.querySelectorAll('input, select'));
      var params = new URLSearchParams(window.location.search);
      fields.forEach(function (f) {
        if (!params.has(f.name)) { return; }
        if (f.type === 'checkbox') { f.checked = params.get(f.name) === '1'; } else { f.value = params.get(f.name); }
      });
      function number(name) {
        var f = form.querySelector('[name="' + name + '"]');
        return f ? parseFloat(f.value) : NaN;
      }
      // A limit as the page was built with it, before the reader changed it.
      function number0(name) {
        var f = form.querySelector('[name="' + name + '"]');
        return f ? parseFloat(f.defaultValue) : NaN;
      }
      function td(label, html, numeric) {
        return '<td' + (numeric ? ' class="num"' : '') + ' data-label="' + escapeHtml(label) + '">' + html + '</td>';
      }
      function link(text, href, cls) {
        return '<a' + (cls ? ' class="' + cls + '"' : '') + ' href="' + escapeHtml(href) + '">' + escapeHtml(text) + '</a>';
      }
      function answer() {
        return load().then(answerWith).catch(function () {});
      }

      function answerWith() {
        var workload = data.workloads.indexOf(form.querySelector('select[name="workload"]').value);
        var ttft = number('ttft_p95_s');
        var perUser = number('per_user');
        var gpuHour = number('gpu_hour');
        var priced = gpuHour > 0;
        var across = form.querySelector('input[name="across"]');
        across = across !== null && across.checked;
        var bounds = data.fixed.slice();
        if (ttft > 0) { bounds.push(['ttft_p95_s', ttft]); }
        if (perUser > 0) { bounds.push(['tpot_ms', 1000 / perUser]); }
        var best = {};
        var order = [];
        var without = [];
        data.sweeps.forEach(function (s) {
          if (s.workload !== workload) { return; }
          var level = null;
          var perGpu = 0;
          s.levels.forEach(function (l) {
            var ok = holdsBounds(l, bounds);
            if (ok && (level === null || l.total / s.gpus > perGpu)) { level = l; perGpu = l.total / s.gpus; }
          });
          if (level === null) { without.push(s); return; }
          if (!(s.group in best)) { order.push(s.group); }
          if (!(s.group in best) || perGpu > best[s.group].perGpu) { best[s.group] = { s: s, level: level, perGpu: perGpu }; }
        });
        var rows = order.map(function (g) { return best[g]; });
        rows.sort(function (a, b) {
          var m = across ? 0 : data.machines.indexOf(a.s.machine) - data.machines.indexOf(b.s.machine);
          return m !== 0 ? m : b.perGpu - a.perGpu;
        });
        var byModel = section.getAttribute('data-group') === 'model';
        var machines = data.machines.length > 0;
        function groupName(s) { return s.groupName + (machines ? ' on ' + s.machine : ''); }
        var head = '<tr><th scope="col" class="num">#</th>' + (byModel ? '<th scope="col">Model</th>' : '') +
          (machines ? '<th scope="col">Machine</th>' : '') + '<th scope="col">Configuration</th>' +
          '<th scope="col" class="num">Output tok/s per GPU</th><th scope="col">At</th><th scope="col" class="num">TTFT p95</th>' +
          '<th scope="col" class="num">tok/s per user</th><th scope="col" class="num">KV pool</th><th scope="col">Quality</th>' +
          (priced ? '<th scope="col" class="num">Cost per million output tokens</th>' : '') + '<th scope="col">Launch</th></tr>';
        var rank = 0;
        var body = rows.slice(0, data.shown).map(function (r, at) {
          var s = r.s;
          var l = r.level;
          rank = at === 0 || (!across && rows[at - 1].s.machine !== s.machine) ? 1 : rank + 1;
          var html = '<tr>' + td('#', String(rank), true);
          if (byModel) { html += td('Model', link(s.model, s.modelUrl)); }
          if (machines) { html += td('Machine', escapeHtml(s.machine || '')); }
          html += td('Configuration', link(s.name, s.url + '#' + loadAnchor(l)));
          html += td('Output tok/s per GPU', '<strong>' + shown(round(r.perGpu, 1)) + '</strong>', true);
          html += td('At', escapeHtml(l.r !== undefined ? loadText(l) : 'concurrency ' + count(l.c)));
          html += td('TTFT p95', '<span>' + (l.ttft_p95_s === null ? '—' : shown(l.ttft_p95_s) + ' s') + ' <span class="n">n = ' + l.n + '</span></span>', true);
          html += td('tok/s per user', shown(l.perUser), true);
          html += td('KV pool', s.kv === null ? '—' : count(s.kv) + ' tokens', true);
          html += td('Quality', s.quality ? link(s.quality.text, s.quality.href, 'chip ' + s.quality.class) : '<span class="none">not measured</span>');
          if (priced) {
            var cost = l.total > 0 ? round(gpuHour * s.gpus / 3600 / l.total * 1e6, 3) : null;
            html += td('Cost per million output tokens', cost === null ? '—' : escapeHtml(data.currency) + shown(cost), true);
          }
          return html + td('Launch', link(s.launchText, s.launch)) + '</tr>';
        });
        var table = section.querySelector('table.decision-table');
        table.tHead.innerHTML = head;
        table.tBodies[0].innerHTML = body.join('\n') + (body.length ? '\n' : '');
        table.closest('.decision-scroll').hidden = body.length === 0;
        var named = {};
        var none = without.filter(function (s) {
          var name = groupName(s);
          if (s.group in best || named[name]) { return false; }
          named[name] = true;
          return true;
        }).map(groupName);
        var measured = {};
        var unmeasured = [];
        data.sweeps.forEach(function (s) { if (s.workload === workload) { measured[s.group] = true; } });
        data.sweeps.forEach(function (s) {
          var name = groupName(s);
          if (!measured[s.group] && unmeasured.indexOf(name) < 0) { unmeasured.push(name); }
        });
        var unmeasuredLine = section.querySelector('.d-unmeasured');
        unmeasured.sort();
        unmeasuredLine.textContent = 'Not measured at this workload: ' + unmeasured.join(', ') + '.';
        unmeasuredLine.hidden = unmeasured.length === 0;
        var defaults = section.querySelector('.d-defaults');
        if (defaults) { defaults.hidden = !(ttft === number0('ttft_p95_s') && perUser === number0('per_user')); }
        var noneLine = section.querySelector('.d-none');
        noneLine.textContent = 'No level within these limits: ' + none.join(', ') + '.';
        noneLine.hidden = none.length === 0;
        var more = section.querySelector('.d-more');
        more.hidden = rows.length <= data.shown;
        if (!more.hidden) { more.firstChild.textContent = 'And ' + (rows.length - data.shown) + ' more within them; every sweep\'s answer is on '; }
        section.querySelector('.d-workload').textContent = data.workloads[workload] || '';
        section.querySelector('.d-limits').textContent = limitsWords(ttft, perUser, section.getAttribute('data-others'));
      }

      function update() {
        answer();
        var url = new URL(window.location.href);
        fields.forEach(function (f) {
          var changed = f.type === 'checkbox' ? f.checked !== f.defaultChecked : f.value !== defaultOf(f) && f.value !== '';
          if (changed) { url.searchParams.set(f.name, f.type === 'checkbox' ? '1' : f.value); } else { url.searchParams.delete(f.name); }
        });
        window.history.replaceState(null, '', url.pathname + url.search + url.hash);
      }
      function defaultOf(f) {
        if (f.tagName === 'SELECT') { return f.options.length ? f.options[0].value : ''; }
        return f.defaultValue;
      }

      form.addEventListener('input', update);
      form.addEventListener('change', update);
      form.addEventListener('reset', function () { window.setTimeout(update, 0); });
      form.addEventListener('submit', function (event) { event.preventDefault(); });
      details.hidden = false;
      if (fields.some(function (f) { return params.has(f.name); })) { details.open = true; answer(); }
    });
  }

  // Goodput: of each level's requests, those that meet every limit on their own, and their
  // rate and output tokens over the level's wall time (the build's site::catalog::goodput),
  // worked out again from the requests beside the page when a limit changes. The limits live
  // in the URL under the names /sweeps/ gives them.
  function startGoodput() {
    document.querySelectorAll('section#goodput').forEach(function (section) {
      var form = section.querySelector('form.goodput-limits');
      var table = section.querySelector('table');
      var url = section.getAttribute('data-requests');
      if (!form || !table || !url) { return; }
      var data = null;
      var inputs = Array.prototype.slice.call(form.querySelectorAll('input'));
      var params = new URLSearchParams(window.location.search);
      inputs.forEach(function (input) {
        if (params.has(input.name)) { input.value = params.get(input.name); }
      });
      function cell(text, sort) {
        return '<td data-sort="' + sort + '">' + escapeHtml(text) + '</td>';
      }
      // format::percent: the share rounded to three places, two of them the percentage's.
      function percentText(share) {
        var text = String(round(share, 3));
        var places = text.indexOf('.') < 0 ? 0 : text.length - text.indexOf('.') - 1;
        return (share * 100).toFixed(Math.max(places - 2, 0)) + '%';
      }
      function answer() {
        var got = data ? Promise.resolve(data) : fetchJson(url).then(function (d) { data = d; return d; });
        return got.then(function () {
          var bounds = [];
          data.limits.forEach(function (limit) {
            var input = form.querySelector('input[name="' + limit[0] + '"]');
            var value = input ? parseFloat(input.value) : NaN;
            if (value > 0) { bounds.push([limit[1], value]); }
          });
          data.levels.forEach(function (level) {
            var row = table.querySelector('tr[id="good-' + level.anchor + '"]');
            if (!row) { return; }
            var good = 0;
            var tokens = 0;
            level.r.forEach(function (r) {
              var ok = bounds.every(function (b) { return r[b[0]] !== null && r[b[0]] <= b[1]; });
              if (ok) { good += 1; tokens += r[3] || 0; }
            });
            var share = level.sent > 0 ? round(good / level.sent, 3) : null;
            var perSecond = level.wall > 0 ? round(good / level.wall, 3) : null;
            var tokensPerSecond = level.wall > 0 ? round(tokens / level.wall, 1) : null;
            var missing = cell('—', '');
            row.cells[2].outerHTML = cell(count(good), good);
            row.cells[3].outerHTML = share === null ? missing : cell(percentText(share), share);
            row.cells[4].outerHTML = perSecond === null ? missing : cell(shown(perSecond), perSecond);
            row.cells[5].outerHTML = tokensPerSecond === null ? missing : cell(shown(tokensPerSecond), tokensPerSecond);
          });
        }).catch(function () {});
      }
      function update() {
        answer();
        var here = new URL(window.location.href);
        inputs.forEach(function (input) {
          if (input.value === input.defaultValue || input.value === '') { here.searchParams.delete(input.name); }
          else { here.searchParams.set(input.name, input.value); }
        });
        window.history.replaceState(null, '', here.pathname + here.search + here.hash);
      }
      form.addEventListener('input', update);
      form.addEventListener('reset', function () { window.setTimeout(update, 0); });
      form.addEventListener('submit', function (event) { event.preventDefault(); });
      form.hidden = false;
      if (inputs.some(function (input) { return params.has(input.name); })) { answer(); }
    });
  }

  // History: any two measurements of a configuration compared figure by figure, a move the
  // bad way beyond the threshold and both measurements' intervals marked, and none across a
  // change of method (the build's site::pages::history::diff and stats::noise).
  function withinNoise(old, oldLow, oldHigh, now, nowLow, nowHigh) {
    var d = now - old;
    var low = d - Math.hypot(now - nowLow, oldHigh - old);
    var high = d + Math.hypot(nowHigh - now, old - oldLow);
    return low <= 0 && high >= 0;
  }

  function startVersions() {
    document.querySelectorAll('section.history').forEach(function (section) {
      var form = section.querySelector('form.versions');
      var inline = section.querySelector('script.figures');
      var table = section.querySelector('.versions-diff table');
      var data = null;
      if (!form || !table) { return; }
      // Every measurement's figures, in the page or in a data file beside it; the choices
      // are made from them, so the page does not grow with the measurements.
      var got = inline ? Promise.resolve(JSON.parse(inline.textContent)) : fetchJson(section.getAttribute('data-figures'));
      got.then(function (loaded) {
        data = loaded;
        ['from', 'to'].forEach(function (name, which) {
          var select = form.elements[name];
          data.members.forEach(function (member, i) {
            var last = i === data.members.length - 1;
            select.add(new Option(member.version, String(i), false, which === 0 ? i === 0 : last));
          });
        });
        form.addEventListener('change', compare);
        form.hidden = false;
      }).catch(function () {});
      function compare() {
        var from = data.members[form.elements.from.value];
        var to = data.members[form.elements.to.value];
        var after = {};
        to.figures.forEach(function (f) { after[f[0]] = f; });
        var sameMethod = from.method === to.method;
        setRows(table, from.figures.filter(function (f) { return f[0] in after; }).map(function (f) {
          var old = f[1];
          var g = after[f[0]];
          var now = g[1];
          var change = old === 0 ? null : (now - old) / old * 100;
          var noisy = f.length > 4 && g.length > 4 && withinNoise(old, f[4], f[5], now, g[4], g[5]);
          var bad = sameMethod && !noisy && change !== null &&
            ((f[2] > 0 && change < -data.threshold) || (f[2] < 0 && change > data.threshold));
          var shownChange = change === null ? '—' : (change >= 0 ? '+' : '−') + Math.abs(change).toFixed(1) + '%';
          var write = f[3] ? count : shown;
          return '<tr' + (bad ? ' class="regression"' : '') + '><td>' + escapeHtml(f[0]) + '</td><td data-sort="' + old + '">' +
            write(old) + '</td><td data-sort="' + now + '">' + write(now) + '</td><td data-sort="' +
            (change === null ? '' : change) + '">' + shownChange + '</td></tr>';
        }).join('\n') + '\n');
        table.caption.firstChild.textContent = sameMethod
          ? to.version + ' against ' + from.version + '; marked rows moved the bad way by more than ' +
            shown(data.threshold) + "% and beyond both measurements' intervals, where they have them"
          : to.version + ' against ' + from.version + ': measured by methods ' + from.method + ' and ' +
            to.method + ', whose definitions differ, so no row is marked';
      }
    });
  }

  function loadCharts() {
    if (!document.querySelector('figure.chart')) { return; }
    var loader = document.createElement('script');
    loader.src = assets + 'echarts.min.js';
    loader.onload = function () {
      drawCharts().then(filterCharts);
      if (dark && dark.addEventListener) { dark.addEventListener('change', drawCharts); }
      window.addEventListener('resize', function () {
        charts.forEach(function (chart) { chart.resize(); });
      });
    };
    document.head.appendChild(loader);
  }

  // The search page: the index the build wrote under search/data/ (see the search module
  // of benchsite's source for its files), of which a query fetches meta.json, the shards of
  // its words and the pages of the results it shows. Words are split, lowercased and stemmed
  // exactly as the build split the pages.
  var JOINS = /[-_./]+/;
  var TERMS = /[\p{Alphabetic}\p{N}_.\/-]+/gu;

  function stem(word, english) {
    var n = word.length;
    if (!english || n <= 3 || !/^[a-z]+$/.test(word)) { return word; }
    var base = word;
    if (word.endsWith('ies')) { base = word.slice(0, -3) + 'y'; }
    else if (word.endsWith('ing') && n >= 6) { base = word.slice(0, -3); }
    else if ((word.endsWith('ed') || word.endsWith('es')) && n >= 5) { base = word.slice(0, -2); }
    else if (word.endsWith('s') && !word.endsWith('ss')) { base = word.slice(0, -1); }
    if (base.endsWith('e') && base.length >= 4) { base = base.slice(0, -1); }
    return base;
  }

  // The words (stemmed) and compounds (whole) of a text, in order.
  function queryTerms(text, english) {
    var words = [];
    var compounds = [];
    (text.match(TERMS) || []).forEach(function (run) {
      var compound = run.replace(/^[-_./]+|[-_./]+$/g, '');
      var parts = compound.split(JOINS).filter(Boolean);
      parts.forEach(function (part) { words.push(stem(part.toLowerCase(), english)); });
      if (parts.length > 1) { compounds.push(compound.toLowerCase()); }
    });
    return { words: words, compounds: compounds };
  }

  function shardOf(term, width) {
    var bytes = new TextEncoder().encode(Array.from(term).slice(0, width).join(''));
    return Array.from(bytes, function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
  }

  function startSearch() {
    var box = document.getElementById('search');
    if (!box) { return; }
    var folder = box.getAttribute('data-index');
    var base = box.getAttribute('data-base');
    var form = box.querySelector('form');
    var input = box.querySelector('input');
    var status = box.querySelector('.search-status');
    var list = box.querySelector('.search-results');
    var more = box.querySelector('.search-more');
    var files = {};
    var meta = null;
    var shown = 0;
    var ranked = [];
    var current = null;
    var generation = 0;
    form.hidden = false;

    function fetchJson(name) {
      if (!files[name]) {
        var url = folder + name + (meta ? '?v=' + meta.version : '');
        files[name] = fetch(url, meta ? {} : { cache: 'no-cache' }).then(function (response) {
          if (!response.ok) { throw new Error(url + ': ' + response.status); }
          return response.json();
        });
      }
      return files[name];
    }

    // Pages scored by the query: every word must match (the last one also as the start of a
    // longer term, as it is typed); a compound found whole counts double.
    function rank(query) {
      var english = meta.stem;
      var q = queryTerms(query, english);
      if (!q.words.length) { return Promise.resolve([]); }
      var wanted = {};
      q.words.concat(q.compounds).forEach(function (term) {
        var key = shardOf(term, meta.width);
        if (meta.shards.indexOf(key) >= 0) { wanted[key] = true; }
      });
      return Promise.all(Object.keys(wanted).map(function (key) {
        return fetchJson('t-' + key + '.json').then(function (shard) { return [key, shard]; });
      })).then(function (loaded) {
        var shards = {};
        loaded.forEach(function (pair) { shards[pair[0]] = pair[1]; });
        function postings(term) { return (shards[shardOf(term, meta.width)] || {})[term]; }
        function add(scores, list, factor) {
          var idf = Math.log(1 + meta.pages / (list.length / 2));
          for (var i = 0; i < list.length; i += 2) {
            scores[list[i]] = (scores[list[i]] || 0) + factor * list[i + 1] * idf;
          }
        }
        var total = null;
        q.words.forEach(function (word, i) {
          var scores = {};
          var exact = postings(word);
          if (exact) { add(scores, exact, 1); }
          if (i === q.words.length - 1 && Array.from(word).length >= meta.width) {
            var shard = shards[shardOf(word, meta.width)] || {};
            Object.keys(shard).forEach(function (term) {
              if (term !== word && term.startsWith(word)) { add(scores, shard[term], 0.5); }
            });
          }
          if (total === null) {
            total = scores;
          } else {
            Object.keys(total).forEach(function (page) {
              if (scores[page] === undefined) { delete total[page]; } else { total[page] += scores[page]; }
            });
          }
        });
        q.compounds.forEach(function (compound) {
          var list = postings(compound) || [];
          var scores = {};
          add(scores, list, 2);
          Object.keys(scores).forEach(function (page) {
            if (total[page] !== undefined) { total[page] += scores[page]; }
          });
        });
        return Object.keys(total).map(Number).sort(function (a, b) {
          return total[b] - total[a] || a - b;
        });
      });
    }

    function page(number) {
      return fetchJson('p-' + Math.floor(number / meta.chunk) + '.json').then(function (chunk) {
        return chunk[number % meta.chunk];
      });
    }

    // About 30 words of the page's text around the first word of the query, the query's
    // words marked.
    function excerpt(text, query) {
      var q = queryTerms(query, meta.stem);
      var last = q.words[q.words.length - 1];
      function matches(word) {
        var term = stem(word.toLowerCase(), meta.stem);
        return q.words.indexOf(term) >= 0 || (last && last.length >= 2 && term.startsWith(last));
      }
      var pieces = text.split(/([\p{Alphabetic}\p{N}]+)/u);
      var first = pieces.findIndex(function (piece, i) { return i % 2 === 1 && matches(piece); });
      var start = Math.max(0, (first < 0 ? 0 : first) - 20);
      var end = Math.min(pieces.length, start + 60);
      var p = document.createElement('p');
      if (start > 0) { p.appendChild(document.createTextNode('… ')); }
      pieces.slice(start, end).forEach(function (piece, i) {
        if ((start + i) % 2 === 1 && matches(piece)) {
          var mark = document.createElement('mark');
          mark.textContent = piece;
          p.appendChild(mark);
        } else {
          p.appendChild(document.createTextNode(piece));
        }
      });
      if (end < pieces.length) { p.appendChild(document.createTextNode(' …')); }
      return p;
    }

    function showMore() {
      var batch = ranked.slice(shown, shown + 10);
      var query = current;
      var asked = generation;
      shown += batch.length;
      more.hidden = true;
      return Promise.all(batch.map(page)).then(function (pages) {
        if (asked !== generation) { return; }
        pages.forEach(function (record) {
          var item = document.createElement('li');
          var link = document.createElement('a');
          link.href = base + record.u.replace(/^\//, '');
          var kind = document.createElement('span');
          kind.className = 'search-kind';
          kind.textContent = record.k;
          link.appendChild(kind);
          link.appendChild(document.createTextNode(record.t || record.u));
          item.appendChild(link);
          item.appendChild(excerpt(record.x, query));
          list.appendChild(item);
        });
        more.hidden = shown >= ranked.length;
      });
    }

    function search(query) {
      query = query.trim();
      generation += 1;
      var asked = generation;
      current = query;
      list.textContent = '';
      more.hidden = true;
      ranked = [];
      shown = 0;
      if (!query) { status.textContent = ''; return Promise.resolve(); }
      return rank(query).then(function (pages) {
        if (asked !== generation) { return; }
        ranked = pages;
        var count = pages.length === 1 ? '1 result' : pages.length + ' results';
        status.textContent = pages.length ? count + ' for “' + query + '”' : 'Nothing found for “' + query + '”';
        return showMore();
      });
    }

    function failed(error) {
      status.textContent = 'Search is unavailable: ' + error.message;
    }

    var typing = null;
    input.addEventListener('input', function () {
      clearTimeout(typing);
      typing = setTimeout(function () {
        var url = new URL(window.location.href);
        if (input.value.trim()) { url.searchParams.set('q', input.value.trim()); } else { url.searchParams.delete('q'); }
        history.replaceState(null, '', url);
        search(input.value).catch(failed);
      }, 150);
    });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      search(input.value).catch(failed);
    });
    more.addEventListener('click', function () { showMore().catch(failed); });
    fetchJson('meta.json').then(function (loaded) {
      meta = loaded;
      var query = new URLSearchParams(window.location.search).get('q') || '';
      input.value = query;
      return search(query);
    }).catch(failed);
  }

  function start() {
    document.querySelectorAll('table.sortable').forEach(makeSortable);
    document.querySelectorAll('form.filters').forEach(makeFilterable);
    startFrontierToggle();
    startLimits();
    startDecision();
    startGoodput();
    startVersions();
    loadCharts();
    startSearch();
    showLinkedRow();
    window.addEventListener('hashchange', showLinkedRow);
  }


  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
