//! What a sweep writes: its per-run and summary tables (CSV, JSON Lines, Markdown) and its
//! plot (a [`Chart`], drawn as SVG by [`crate::plot`]).

use super::*;
use crate::meta::k;

impl Sweep {
    pub(super) fn row_cells(&self, r: &Row) -> Vec<Cell> {
        let mut cells = self.line_cells(r.line, r.nodes);
        cells.extend([
            Cell::Int(r.seed),
            Cell::Int(r.messages),
            Cell::Int(r.counted),
            r.theory.map_or(Cell::Empty, Cell::Int),
            Cell::Int(r.end_time),
            Cell::Int(r.steps),
            Cell::Int(r.quiescent as u64),
            r.agreement.map_or(Cell::Empty, |l| Cell::Int(l as u64)),
            Cell::Int(r.leaders as u64),
            Cell::Int(r.max_leaders as u64),
            Cell::Int(r.violations as u64),
            Cell::Int(r.elections as u64),
            r.downtime.map_or(Cell::Empty, Cell::Int),
            r.minority_leaders.map_or(Cell::Empty, |m| Cell::Int(m as u64)),
            Cell::Str(format!("{:016x}", r.trace_hash)),
            Cell::Int(r.run),
            Cell::Str(r.faults.clone()),
            r.order.clone().map_or(Cell::Empty, Cell::Str),
        ]);
        cells
    }

    /// The cells that say which line and node count a row or a summary row is about.
    fn line_cells(&self, line: usize, nodes: u32) -> Vec<Cell> {
        let line = &self.lines[line];
        vec![
            Cell::Str(line.label.en.clone()),
            Cell::Str(line.algorithm.id.into()),
            Cell::Str(line.variant.as_ref().map_or(String::new(), |v| v.en.clone())),
            Cell::Int(nodes as u64),
        ]
    }

    fn group_cells(&self, g: &Group) -> Vec<Cell> {
        let st = |f: fn(&Stats) -> f64| g.stats.as_ref().map_or(Cell::Empty, |s| Cell::Num(f(s)));
        let mut cells = self.line_cells(g.line, g.nodes);
        cells.extend([
            Cell::Int(g.runs),
            Cell::Str(self.measure.name().into()),
            Cell::Int(g.stats.as_ref().map_or(0, |s| s.n)),
            st(|s| s.mean),
            st(|s| s.sd),
            st(|s| s.min),
            st(|s| s.median),
            st(|s| s.p90),
            st(|s| s.max),
            g.theory.map_or(Cell::Empty, Cell::Int),
            Cell::Str(self.claim(g.line).into()),
            Cell::Int(g.agreement),
            Cell::Int(g.ever_two),
            Cell::Int(g.end_two),
            Cell::Int(g.end_one),
            Cell::Int(g.end_none),
            Cell::Int(g.minority_leader),
        ]);
        cells
    }

    /// The header and cells of the per-run table (`summary == false`) or the summary.
    pub fn table(&self, summary: bool) -> (&'static [&'static str], Vec<Vec<Cell>>) {
        if summary {
            (SUMMARY_COLUMNS, self.summary().iter().map(|g| self.group_cells(g)).collect())
        } else {
            (COLUMNS, self.rows.iter().map(|r| self.row_cells(r)).collect())
        }
    }

    /// The per-run table (or the summary) as text, with only `columns` if given (in that
    /// order). The command line prints exactly this, so the browser can compare.
    pub fn render(&self, summary: bool, columns: Option<&[String]>, format: Format) -> Result<String, String> {
        let (head, rows) = self.table(summary);
        let pick: Vec<usize> = match columns {
            None => (0..head.len()).collect(),
            Some(names) => names
                .iter()
                .map(|c| {
                    head.iter()
                        .position(|h| h == c)
                        .ok_or_else(|| format!("no column '{c}' (expected: {})", head.join(", ")))
                })
                .collect::<Result<_, _>>()?,
        };
        let mut out = String::new();
        let line = |out: &mut String, cells: Vec<String>, sep: &str, ends: (&str, &str)| {
            out.push_str(ends.0);
            out.push_str(&cells.join(sep));
            out.push_str(ends.1);
            out.push('\n');
        };
        match format {
            Format::Csv => line(&mut out, pick.iter().map(|&i| head[i].to_string()).collect(), ",", ("", "")),
            Format::Markdown => {
                line(&mut out, pick.iter().map(|&i| head[i].to_string()).collect(), " | ", ("| ", " |"));
                line(&mut out, vec!["---"; pick.len()].into_iter().map(String::from).collect(), "|", ("|", "|"));
            }
            Format::JsonLines => {}
        }
        for r in rows {
            match format {
                Format::Csv => line(&mut out, pick.iter().map(|&i| r[i].csv()).collect(), ",", ("", "")),
                Format::Markdown => {
                    line(&mut out, pick.iter().map(|&i| r[i].text().replace('|', "\\|")).collect(), " | ", ("| ", " |"))
                }
                Format::JsonLines => {
                    let o: Map<String, Value> = pick.iter().map(|&i| (head[i].to_string(), r[i].json())).collect();
                    out.push_str(&Value::Object(o).to_string());
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }

    /// One CSV row per run, with a header ([`COLUMNS`]).
    pub fn csv(&self) -> String {
        self.render(false, None, Format::Csv).expect("every column")
    }
    /// One CSV row per line and node count, with a header ([`SUMMARY_COLUMNS`]).
    pub fn summary_csv(&self) -> String {
        self.render(true, None, Format::Csv).expect("every column")
    }
    /// The same as [`Sweep::csv`] / [`Sweep::summary_csv`], one JSON object a line.
    pub fn json_lines(&self, summary: bool) -> String {
        self.render(summary, None, Format::JsonLines).expect("every column")
    }

    /// The plot of what has been run so far.
    pub fn chart(&self, lang: Lang) -> Chart {
        let p = &self.plot;
        let groups = self.summary();
        let xs: Vec<u32> = {
            let mut v: Vec<u32> = groups.iter().map(|g| g.nodes).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let kind = p.kind.unwrap_or(if xs.len() > 1 { ChartKind::Lines } else { ChartKind::Bars });
        let measure = Label::from_text(&self.measure.label());
        let (x_label, y_label) = match kind {
            ChartKind::Lines if p.x == XAxis::Diameter => (Label::from_text(&k::EXPERIMENT_DIAMETER), measure),
            ChartKind::Lines => (Label::from_text(&k::EXPERIMENT_NODES_N), measure),
            ChartKind::Cdf => (measure, Label::from_text(&k::EXPERIMENT_FRACTION_OF_RUNS)),
            ChartKind::Bars if self.measure.is_flag() => (measure, Label::default()),
            ChartKind::Bars => (
                Label {
                    en: k::EXPERIMENT_MEAN_OVER_RUNS.format(Lang::En, &[&measure.en]),
                    zh: k::EXPERIMENT_MEAN_OVER_RUNS.format(Lang::Zh, &[&measure.zh]),
                },
                Label::default(),
            ),
        };
        let mut series = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            let mine: Vec<&Group> = groups.iter().filter(|g| g.line == i).collect();
            let label = line.label.get(lang).to_string();
            match kind {
                ChartKind::Lines => {
                    let stats: Vec<(f64, &Stats)> =
                        mine.iter().filter_map(|g| g.stats.as_ref().map(|s| (self.x_of(g), s))).collect();
                    series.push(Series {
                        label,
                        color: i,
                        dashed: false,
                        points: stats.iter().map(|(x, s)| (*x, s.mean)).collect(),
                        band: stats.iter().filter(|(_, s)| s.max > s.min).map(|(x, s)| (*x, s.min, s.max)).collect(),
                    });
                    if let Some(f) = line.formula {
                        let theory = k::EXPERIMENT_THEORY;
                        series.push(Series {
                            label: format!("{}: {}", theory.get(lang), f.name),
                            color: i,
                            dashed: true,
                            points: mine.iter().filter_map(|g| Some((self.x_of(g), g.theory? as f64))).collect(),
                            band: vec![],
                        });
                    }
                }
                ChartKind::Cdf => {
                    let (mut v, runs) = self.line_values(i);
                    crate::sort::sort_by(&mut v, f64::total_cmp);
                    let points = v.iter().enumerate().map(|(k, &x)| (x, (k + 1) as f64 / runs.max(1) as f64)).collect();
                    series.push(Series { label, color: i, dashed: false, points, band: vec![] });
                }
                ChartKind::Bars => {
                    let (mut v, _) = self.line_values(i);
                    if let Some(s) = Stats::of(&mut v) {
                        series.push(Series {
                            label,
                            color: 0,
                            dashed: false,
                            points: vec![(s.mean, s.n as f64)],
                            band: vec![],
                        });
                    }
                }
            }
        }
        let mut marks = Vec::new();
        let mut unlined = 6;
        for r in &self.references {
            let label = r.label.get(lang).to_string();
            if r.curve && kind != ChartKind::Bars {
                let color = r.line.unwrap_or_else(|| {
                    unlined += 1;
                    unlined - 1
                });
                series.push(Series { label, color, dashed: true, points: r.points.clone(), band: vec![] });
            } else if !r.curve {
                marks.push(Mark { x: r.points[0].0, y: r.points[0].1, label, color: r.line });
            }
        }
        Chart {
            kind,
            title: self.title.get(lang).to_string(),
            x_label: p.x_label.as_ref().unwrap_or(&x_label).get(lang).to_string(),
            y_label: p.y_label.as_ref().unwrap_or(&y_label).get(lang).to_string(),
            x_log: p.x_log,
            y_log: p.y_log,
            x_min: p.x_min,
            x_max: p.x_max,
            percent: self.measure.is_flag(),
            series,
            marks,
        }
    }

    /// The plot as a standalone SVG document.
    pub fn svg(&self, lang: Lang) -> String {
        crate::plot::svg(&self.chart(lang))
    }
}

/// How [`Sweep::render`] writes a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// One JSON object a line, keyed by column; empty cells are null.
    JsonLines,
    Markdown,
}

/// One table cell: text, a whole number, a decimal (written with 3 places), or nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Str(String),
    Int(u64),
    Num(f64),
    Empty,
}

impl Cell {
    pub fn text(&self) -> String {
        match self {
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(x) => format!("{x:.3}"),
            Cell::Empty => String::new(),
        }
    }
    /// The cell in a CSV file: quoted when it holds a comma, a quote or a line break. A text
    /// cell (a label from the spec, never a number) that a spreadsheet would read as a formula
    /// — it starts with `=`, `+`, `-`, `@`, a tab or a carriage return — is written after a `'`,
    /// so `=HYPERLINK(…)` is shown, not run. Number cells are written as they are.
    pub fn csv(&self) -> String {
        let mut t = self.text();
        if matches!(self, Cell::Str(_)) && t.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            t.insert(0, '\'');
        }
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t
        }
    }
    pub fn json(&self) -> Value {
        match self {
            Cell::Str(s) => json!(s),
            Cell::Int(i) => json!(i),
            // The value the CSV shows, so both outputs carry the same numbers.
            Cell::Num(x) => json!(shown(*x)),
            Cell::Empty => Value::Null,
        }
    }
}

/// The number `{x:.3}` shows, read back without a decimal parser (which would bring its tables
/// into the wasm): the shown thousandths over 1000. Below 2⁵³ thousandths both are exact
/// doubles, so the one division rounds the decimal exactly as parsing the text would. Beyond,
/// doubles are more than 1/512 apart, so the text (within 1/2000 of the value) reads back as the
/// value itself; so do infinities and NaN.
fn shown(x: f64) -> f64 {
    let text = format!("{:.3}", x.abs());
    let digits = text.replace('.', "");
    match digits.parse::<u64>() {
        Ok(m) if m <= 1 << 53 => (m as f64 / 1000.0).copysign(x),
        _ => x,
    }
}

#[cfg(test)]
mod tests {
    use super::Cell;

    #[test]
    fn a_text_cell_a_spreadsheet_would_run_is_neutralised_and_numbers_are_not() {
        let text = |t: &str| Cell::Str(t.into()).csv();
        assert_eq!(text("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
        for t in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(text(t), format!("'{t}"), "{t:?}");
        }
        for t in ["Bully", "150–155 ms", "a=b", "1-2", ""] {
            assert_eq!(text(t), t, "{t:?}");
        }
        assert_eq!(Cell::Num(-2.5).csv(), "-2.500");
        assert_eq!(Cell::Int(3).csv(), "3");
    }

    #[test]
    fn a_json_number_is_the_csv_text_read_back() {
        let mut xs =
            vec![0.0, -0.0, -0.0004, 0.0005, 0.0015, 2.5e-4, 1e15, -1e16, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
        xs.extend((1..5000).map(|i| i as f64 / 7.0 * if i % 2 == 0 { 1.0 } else { -1.0 }));
        xs.extend((1..200).map(|i| 1.37f64.powi(i)));
        for x in xs {
            let cell = Cell::Num(x);
            let read: f64 = cell.text().parse().unwrap();
            let json = cell.json();
            match json.as_f64() {
                Some(v) => assert_eq!(v.to_bits(), read.to_bits(), "{x}: {}", cell.text()),
                None => assert!(!read.is_finite(), "{x}"),
            }
        }
    }
}
