// multibody report: the results browser. The tree (<nav id="tree">) lists every body, joint, force,
// contact and the energy; clicking an element shows its standard plots, clicking a quantity shows
// that plot. Plots are uPlot charts (drag to zoom, double-click to reset) sharing one cursor; a
// red line follows the animation's time, and clicking a plot moves the animation to that time.
// The animation runs in the iframe #animation and talks to this page by postMessage.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const COLORS = ["#1f6fd1", "#e0701b", "#2e9a45", "#c9302c", "#7f4fc0", "#a5842a", "#1b9e9b", "#d0559f"];
  const PLOT_HEIGHT = 230;

  function decode(base64, ArrayType) {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
    return new ArrayType(bytes.buffer);
  }

  const times = Array.from(decode(data.time, Float64Array));
  const panels = new Map(); // panel id -> {panel, element}
  for (const group of data.tree) {
    for (const element of group.elements) {
      for (const panel of element.panels) panels.set(panel.id, { panel, element });
    }
  }

  // ---------------------------------------------------------------- tick labels that fit
  function tickLabels(u, splits) {
    if (splits.length === 0) return [];
    const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : Math.abs(splits[0]) || 1;
    const largest = Math.max(...splits.map(Math.abs));
    if (largest >= 1e5 || (largest > 0 && step < 1e-4)) {
      const digits = Math.max(1, Math.min(6, Math.ceil(Math.log10(largest / step)) + 1));
      return splits.map((v) => (v === 0 ? "0" : v.toExponential(Math.max(0, digits - 1))));
    }
    let decimals = 0; // the fewest that write the step exactly (0.25 needs 2, 0.3 needs 1)
    while (decimals < 8 && Math.abs(Number(step.toFixed(decimals)) - step) > 1e-6 * step) decimals++;
    return splits.map((v) => v.toFixed(decimals));
  }

  function axisWidth(u, values, axisIndex) { // room for the longest tick label, so labels never overlap the plot
    if (!values) return 50;
    u.ctx.save();
    u.ctx.font = u.axes[axisIndex].font[0];
    const widest = Math.max(...values.map((text) => u.ctx.measureText(String(text)).width));
    u.ctx.restore();
    return Math.ceil(widest / devicePixelRatio) + 22;
  }

  // ---------------------------------------------------------------- the animation's time cursor
  let cursorTime = times.length ? times[0] : 0;
  const charts = [];

  function timeCursor() {
    return {
      hooks: {
        draw: [(u) => {
          const x = Math.round(u.valToPos(cursorTime, "x", true));
          if (x < u.bbox.left - 1 || x > u.bbox.left + u.bbox.width + 1) return;
          const ctx = u.ctx;
          ctx.save();
          ctx.setLineDash([]);
          ctx.strokeStyle = "#d62728";
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        }],
      },
    };
  }

  function setCursor(t) {
    cursorTime = t;
    for (const { chart } of charts) if (chart) chart.redraw(false, false);
  }

  const animation = document.getElementById("animation");
  function setAnimationTime(t) {
    setCursor(t);
    if (animation && animation.contentWindow) animation.contentWindow.postMessage({ multibody: "setTime", time: t }, "*");
  }
  window.addEventListener("message", (event) => {
    if (event.data && event.data.multibody === "time") setCursor(event.data.time);
  });

  // ---------------------------------------------------------------- plots
  const plotArea = document.getElementById("plots");

  function chartFor(panel, box) {
    const series = [{ label: "t [s]", value: (u, v) => (v == null ? "-" : v.toPrecision(6)) }];
    const columns = [times];
    panel.curves.forEach((curve, k) => {
      series.push({
        label: curve.label + (curve.zero ? " (= 0)" : ""),
        stroke: COLORS[k % COLORS.length],
        width: 1.5,
        dash: curve.zero ? [6, 4] : undefined,
        value: (u, v) => (v == null ? "-" : v.toPrecision(6)),
      });
      columns.push(curve.zero ? new Array(times.length).fill(0) : Array.from(decode(curve.values, Float32Array)));
    });
    const options = {
      width: Math.max(200, box.clientWidth),
      height: PLOT_HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "time [s]", labelSize: 20, values: tickLabels },
        { size: axisWidth, values: tickLabels },
      ],
      series,
      cursor: { sync: { key: "multibody-time" }, drag: { x: true, y: false } },
      legend: { live: true },
      plugins: [timeCursor()],
    };
    const chart = new uPlot(options, columns, box);
    let pressed = null; // a click (not a drag-to-zoom) on the plot sets the animation time
    chart.over.addEventListener("mousedown", (event) => { pressed = [event.clientX, event.clientY]; });
    chart.over.addEventListener("click", (event) => {
      if (pressed && Math.hypot(event.clientX - pressed[0], event.clientY - pressed[1]) < 4) {
        setAnimationTime(chart.posToVal(chart.cursor.left, "x"));
      }
      pressed = null;
    });
    return chart;
  }

  function panelBox(panel) {
    const section = document.createElement("section");
    section.className = "panel";
    section.dataset.panel = panel.id;
    const title = document.createElement("h2");
    title.textContent = panel.title + " ";
    const unit = document.createElement("span");
    unit.className = "unit";
    unit.textContent = "[" + panel.unit + "]";
    title.appendChild(unit);
    section.appendChild(title);
    for (const text of panel.notes) {
      const note = document.createElement("p");
      note.className = "note";
      note.textContent = text;
      section.appendChild(note);
    }
    const box = document.createElement("div");
    box.className = "chart";
    section.appendChild(box);
    return [section, box];
  }

  function show(ids) {
    for (const { chart } of charts) if (chart) chart.destroy();
    charts.length = 0;
    plotArea.textContent = "";
    for (const id of ids) {
      const entry = panels.get(id);
      if (!entry) throw new Error("no plot '" + id + "'; plots are: " + Array.from(panels.keys()).join(", "));
      const [section, box] = panelBox(entry.panel);
      plotArea.appendChild(section);
      charts.push({ id, chart: entry.panel.zero ? null : chartFor(entry.panel, box), box }); // all zero: the note says it
    }
    if (charts.length) {
      const hint = document.createElement("p");
      hint.className = "hint";
      hint.textContent = "Drag across a plot to zoom in time, double-click to zoom out; click a plot to move the animation there.";
      plotArea.appendChild(hint);
    }
    const whole = ids.length > 0 ? panels.get(ids[0]).element.name : null; // an element's standard set?
    const wholeShown = whole !== null && standardPanels(whole).join("\n") === ids.join("\n");
    document.querySelectorAll("#tree button").forEach((button) => {
      const chosen = button.dataset.panel ? !wholeShown && ids.includes(button.dataset.panel)
        : wholeShown && button.dataset.element === whole;
      button.classList.toggle("selected", chosen);
      if (chosen && button.dataset.panel) button.closest("li.element-item").classList.add("open");
    });
  }

  function standardPanels(elementName) {
    for (const group of data.tree) {
      const element = group.elements.find((e) => e.name === elementName);
      if (element) return element.panels.filter((p) => p.standard).map((p) => p.id);
    }
    throw new Error("no element '" + elementName + "' in the report");
  }

  document.querySelectorAll("#tree button.element").forEach((button) => {
    button.addEventListener("click", () => {
      const item = button.parentElement;
      const wasSelected = button.classList.contains("selected");
      item.classList.toggle("open", !(wasSelected && item.classList.contains("open")));
      show(standardPanels(button.dataset.element));
    });
  });
  document.querySelectorAll("#tree button[data-panel]").forEach((button) => {
    button.addEventListener("click", () => show([button.dataset.panel]));
  });

  new ResizeObserver(() => {
    for (const { chart, box } of charts) {
      if (chart && Math.abs(chart.width - box.clientWidth) > 1) chart.setSize({ width: Math.max(200, box.clientWidth), height: PLOT_HEIGHT });
    }
  }).observe(plotArea);

  if (data.selection.length) {
    const first = panels.get(data.selection[0]).element.name;
    const button = document.querySelector('#tree button.element[data-element="' + CSS.escape(first) + '"]');
    if (button) button.parentElement.classList.add("open");
  }
  show(data.selection);

  // ---------------------------------------------------------------- the page's state, for scripts and tests
  window.multibodyReport = {
    ready: true,
    panels: () => Array.from(panels.keys()),
    shown: () => charts.map(({ id }) => id),
    show,
    cursorTime: () => cursorTime,
    setTime: setAnimationTime,
    plotWidth: (k) => charts[k].chart.width,
    timeToPixel: (k, t) => { // CSS pixel of time t on plot k, relative to the page's viewport
      const chart = charts[k].chart;
      const rect = chart.over.getBoundingClientRect();
      return [rect.left + chart.valToPos(t, "x"), rect.top + rect.height / 2];
    },
  };
})();
