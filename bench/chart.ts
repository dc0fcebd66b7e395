// The benchmark's chart, drawn as SVG with no library: one panel per phase, time (log scale)
// against package size (log scale), one line per tool, solid on loopback and dashed through the
// delay proxy, so how each tool scales, and what distance costs it, is seen rather than read.

import { summarize } from "./measure.js";
import type { Measurement } from "./report.js";
import { PHASES, type ToolId } from "./tools.js";

const COLORS: Record<ToolId, string> = { "kpt-ts": "#1f77b4", "kpt-ts-ssa": "#17becf", kpt: "#d62728", kubectl: "#9467bd", kapp: "#2ca02c", bare: "#7f7f7f" };
const PANEL = { w: 300, h: 240, left: 48, right: 12, top: 28, bottom: 36 };

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
const niceSeconds = (s: number) => (s >= 10 ? s.toFixed(0) : s >= 1 ? s.toFixed(1) : s.toFixed(2));

export function drawChart(ms: Measurement[], labels: Map<ToolId, string>, title: string): string {
  const points = ms.flatMap((m) => {
    const st = summarize(m.samples);
    return st ? [{ ...m, median: st.median }] : [];
  });
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const tools = [...new Set(points.map((p) => p.tool))];
  const rtts = [...new Set(points.map((p) => p.rtt))].sort((a, b) => a - b);
  const width = PANEL.w * PHASES.length + 40; // 20 px of margin each side (the panels start at 20)
  const legendRows = tools.length + rtts.length;
  const height = PANEL.h + 40 + legendRows * 16 + 10;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="100%" height="100%" fill="white"/>`);
  out.push(`<text x="${width / 2}" y="16" text-anchor="middle" font-size="13">${esc(title)}</text>`);
  if (!points.length || !sizes.length) {
    out.push(`<text x="20" y="60">no measurements</text></svg>`);
    return out.join("\n");
  }
  const lo = Math.min(...points.map((p) => p.median));
  const hi = Math.max(...points.map((p) => p.median));
  const yMin = 10 ** Math.floor(Math.log10(Math.max(lo, 0.01)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(hi, yMin * 10)));
  const xMin = sizes[0]!;
  const xMax = sizes[sizes.length - 1]!;
  PHASES.forEach((phase, i) => {
    const ox = i * PANEL.w + 20;
    const oy = 20;
    const pw = PANEL.w - PANEL.left - PANEL.right;
    const ph = PANEL.h - PANEL.top - PANEL.bottom;
    const x = (n: number) => ox + PANEL.left + (xMax === xMin ? pw / 2 : ((Math.log10(n) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * pw);
    const y = (s: number) => oy + PANEL.top + ph - ((Math.log10(Math.max(s, yMin)) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * ph;
    out.push(`<text x="${ox + PANEL.left + pw / 2}" y="${oy + 16}" text-anchor="middle" font-weight="bold">${phase}</text>`);
    out.push(`<rect x="${ox + PANEL.left}" y="${oy + PANEL.top}" width="${pw}" height="${ph}" fill="none" stroke="#ccc"/>`);
    for (let d = yMin; d <= yMax * 1.001; d *= 10) {
      for (const m of [1, 2, 5]) {
        const v = d * m;
        if (v > yMax * 1.001) continue;
        out.push(`<line x1="${ox + PANEL.left}" x2="${ox + PANEL.left + pw}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`);
        out.push(`<text x="${ox + PANEL.left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#555">${niceSeconds(v)}s</text>`);
      }
    }
    for (const n of sizes) out.push(`<text x="${x(n).toFixed(1)}" y="${oy + PANEL.top + ph + 14}" text-anchor="middle" fill="#555">${n}</text>`);
    out.push(`<text x="${ox + PANEL.left + pw / 2}" y="${oy + PANEL.top + ph + 28}" text-anchor="middle" fill="#555">objects</text>`);
    for (const tool of tools) {
      for (const rtt of rtts) {
        const line = points.filter((p) => p.phase === phase && p.tool === tool && p.rtt === rtt).sort((a, b) => a.size - b.size);
        if (!line.length) continue;
        const dash = rtt > 0 ? ` stroke-dasharray="5,3"` : "";
        out.push(`<polyline fill="none" stroke="${COLORS[tool]}" stroke-width="1.8"${dash} points="${line.map((p) => `${x(p.size).toFixed(1)},${y(p.median).toFixed(1)}`).join(" ")}"/>`);
        for (const p of line) out.push(`<circle cx="${x(p.size).toFixed(1)}" cy="${y(p.median).toFixed(1)}" r="2.5" fill="${COLORS[tool]}"><title>${esc(`${labels.get(tool) ?? tool}, ${rtt ? `${rtt} ms RTT` : "loopback"}, ${p.size} objects, ${phase}: ${p.median.toFixed(2)}s`)}</title></circle>`);
      }
    }
  });
  let ly = PANEL.h + 40;
  for (const tool of tools) {
    out.push(`<line x1="40" x2="70" y1="${ly - 4}" y2="${ly - 4}" stroke="${COLORS[tool]}" stroke-width="2"/><text x="76" y="${ly}">${esc(labels.get(tool) ?? tool)}</text>`);
    ly += 16;
  }
  for (const rtt of rtts) {
    out.push(`<line x1="40" x2="70" y1="${ly - 4}" y2="${ly - 4}" stroke="#333" stroke-width="1.5"${rtt > 0 ? ` stroke-dasharray="5,3"` : ""}/><text x="76" y="${ly}">${rtt > 0 ? `${rtt} ms round trip (TCP delay proxy)` : "loopback"}</text>`);
    ly += 16;
  }
  out.push("</svg>");
  return out.join("\n");
}
