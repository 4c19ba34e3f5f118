//! Reading a spec: every key checked, every error naming its field, every line built once up
//! front (see the module doc of [`super`] for the format).

use super::*;

fn read_fault(o: &Map<String, Value>, path: &str) -> Result<Fault, ScenarioError> {
    let at = match o.get("at") {
        Some(v) => Some(
            v.as_u64().ok_or_else(|| ScenarioError::new(format!("{path}.at"), "expected a whole number of ticks"))?,
        ),
        None => None,
    };
    match (at.is_some(), o.get("after")) {
        (false, Some(Value::String(s))) if s == "agreement" => {}
        (false, Some(_)) => return Err(ScenarioError::new(format!("{path}.after"), "expected \"agreement\"")),
        (false, None) => return Err(ScenarioError::new(path, "needs \"at\" (ticks) or \"after\": \"agreement\"")),
        (true, Some(_)) => return Err(ScenarioError::new(path, "give \"at\" or \"after\", not both")),
        (true, None) => {}
    }
    let delay = match o.get("delay") {
        Some(v) if at.is_none() => {
            v.as_u64().ok_or_else(|| ScenarioError::new(format!("{path}.delay"), "expected a whole number of ticks"))?
        }
        Some(_) => return Err(ScenarioError::new(format!("{path}.delay"), "only with \"after\"")),
        None => 0,
    };
    let keys: Vec<&String> = o.keys().filter(|k| !["at", "after", "delay"].contains(&k.as_str())).collect();
    let [key] = keys[..] else {
        return Err(ScenarioError::new(
            path,
            "needs exactly one action: crash, recover, start, isolate, partition, cut or heal",
        ));
    };
    let v = &o[key];
    let field = format!("{path}.{key}");
    let what = match key.as_str() {
        "crash" | "recover" | "start" | "isolate" => {
            let k: &'static str = match key.as_str() {
                "crash" => "crash",
                "recover" => "recover",
                "start" => "start",
                _ => "isolate",
            };
            let who = match v {
                Value::String(s) => match s.as_str() {
                    "max" => Who::Max,
                    "min" => Who::Min,
                    "random" => Who::Random,
                    "all" => Who::All,
                    "others" => Who::Others,
                    "leader" if at.is_none() => Who::Leader,
                    "leader" => return Err(ScenarioError::new(field, "\"leader\" needs \"after\": \"agreement\"")),
                    _ => {
                        return Err(ScenarioError::new(
                            field,
                            format!("unknown node '{s}' (expected an id, max, min, random, all, others or leader)"),
                        ))
                    }
                },
                _ => Who::Id(
                    v.as_u64()
                        .filter(|&x| x <= u32::MAX as u64)
                        .ok_or_else(|| ScenarioError::new(field.clone(), format!("expected a node id, found {v}")))?
                        as NodeId,
                ),
            };
            Do::Node(k, who)
        }
        "partition" if v == "random" => Do::RandomPartition,
        "partition" | "cut" | "heal" => {
            match Action::from_object(&Map::from_iter([(key.clone(), v.clone())]), &[], path)? {
                Action::Partition { groups, .. } => Do::Partition(groups),
                Action::Cut { from, to } => Do::Cut(from, to),
                _ => Do::Heal,
            }
        }
        _ => {
            return Err(ScenarioError::new(
                field,
                "unknown action (expected crash, recover, start, isolate, partition, cut or heal)",
            ))
        }
    };
    Ok(Fault { at, delay, what })
}

/// RFC 7386 merge patch.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        _ => *target = patch.clone(),
    }
}

/// A JSON object of the spec being read: unknown keys are refused, and every error names the
/// field (`algorithms[1].seeds.count`). Read by hand rather than by derived deserializers,
/// which cost the browser build several times the size.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str, keys: &[&str]) -> Result<Obj<'a>, ScenarioError> {
        let map = v.as_object().ok_or_else(|| ScenarioError::new(path, "expected an object"))?;
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(ScenarioError::new(
                prefixed(path, k),
                format!("unknown field `{k}`, expected one of: {}", keys.join(", ")),
            ));
        }
        Ok(Obj { map, path: path.to_string() })
    }
    fn field(&self, k: &str) -> String {
        prefixed(&self.path, k)
    }
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }
    fn read<T>(&self, k: &str, what: &str, f: impl Fn(&'a Value) -> Option<T>) -> Result<Option<T>, ScenarioError> {
        self.get(k)
            .map(|v| f(v).ok_or_else(|| ScenarioError::new(self.field(k), format!("expected {what}, found {v}"))))
            .transpose()
    }
    fn u64(&self, k: &str) -> Result<Option<u64>, ScenarioError> {
        self.read(k, "a whole number", Value::as_u64)
    }
    fn f64(&self, k: &str) -> Result<Option<f64>, ScenarioError> {
        self.read(k, "a number", Value::as_f64)
    }
    fn bool(&self, k: &str) -> Result<bool, ScenarioError> {
        Ok(self.read(k, "true or false", Value::as_bool)?.unwrap_or(false))
    }
    fn str(&self, k: &str) -> Result<Option<&'a str>, ScenarioError> {
        self.read(k, "a string", Value::as_str)
    }
    fn list(&self, k: &str) -> Result<&'a [Value], ScenarioError> {
        Ok(self.read(k, "a list", |v| v.as_array().map(Vec::as_slice))?.unwrap_or(&[]))
    }
    fn label(&self, k: &str) -> Result<Option<Label>, ScenarioError> {
        self.get(k).map(|v| Label::read(v, &self.field(k))).transpose()
    }
    /// The scenario fields a line or variant sets (`set`): an object, merged into the scenario.
    fn patch(&self, k: &str) -> Result<Option<&'a Value>, ScenarioError> {
        self.read(k, "an object (the scenario's fields to set)", |v| v.is_object().then_some(v))
    }
    fn strings(&self, k: &str) -> Result<Option<Vec<String>>, ScenarioError> {
        self.read(k, "a list of strings", |v| v.as_array()?.iter().map(|x| x.as_str().map(String::from)).collect())
    }
    fn seeds(&self, k: &str) -> Result<Option<Seeds>, ScenarioError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let o = Obj::new(v, &self.field(k), &["count", "start"])?;
        Ok(Some(Seeds { count: o.u64("count")?.unwrap_or(1), start: o.u64("start")?.unwrap_or(1) }))
    }
    fn order(&self, k: &str) -> Result<Option<bool>, ScenarioError> {
        match self.str(k)? {
            None => Ok(None),
            Some("given") => Ok(Some(false)),
            Some("random") => Ok(Some(true)),
            Some(x) => {
                Err(ScenarioError::new(self.field(k), format!("expected \"given\" or \"random\", found \"{x}\"")))
            }
        }
    }
    fn faults(&self, k: &str) -> Result<Vec<Fault>, ScenarioError> {
        let path = self.field(k);
        self.list(k)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let p = format!("{path}[{i}]");
                read_fault(v.as_object().ok_or_else(|| ScenarioError::new(&p, "expected an object"))?, &p)
            })
            .collect()
    }
}

/// One entry of `algorithms`.
struct LineSpec<'a> {
    path: String,
    algorithm: &'static Algorithm,
    label: Option<Label>,
    formula: Option<&'static Formula>,
    kinds: Option<Vec<&'static str>>,
    set: Option<&'a Value>,
    faults: Vec<Fault>,
    order: Option<bool>,
    seeds: Option<Seeds>,
}

impl<'a> LineSpec<'a> {
    /// An algorithm with every setting from the spec.
    fn plain(algorithm: &'static Algorithm, path: String) -> LineSpec<'a> {
        LineSpec {
            path,
            algorithm,
            label: None,
            formula: None,
            kinds: None,
            set: None,
            faults: vec![],
            order: None,
            seeds: None,
        }
    }

    fn read(v: &'a Value, path: String) -> Result<LineSpec<'a>, ScenarioError> {
        let o = match v {
            Value::String(id) => {
                return Ok(LineSpec::plain(registry::find_or_err(id).map_err(|e| e.within(&path))?, path))
            }
            _ => Obj::new(v, &path, &["algorithm", "label", "formula", "kinds", "set", "schedule", "order", "seeds"])?,
        };
        let id =
            o.str("algorithm")?.ok_or_else(|| ScenarioError::new(o.field("algorithm"), "missing (an algorithm id)"))?;
        let algorithm = registry::find_or_err(id).map_err(|e| e.within(&path))?;
        let formula = match o.str("formula")? {
            None => None,
            Some(name) => Some(algorithm.formulas.iter().find(|f| f.name == name).ok_or_else(|| {
                let names: Vec<&str> = algorithm.formulas.iter().map(|f| f.name).collect();
                ScenarioError::new(
                    o.field("formula"),
                    format!("{} declares no formula '{name}' (it declares: {})", algorithm.id, names.join(", ")),
                )
            })?),
        };
        let kinds = o.strings("kinds")?.map(|k| read_kinds(algorithm, &k, &o.field("kinds"))).transpose()?;
        Ok(LineSpec {
            label: o.label("label")?,
            kinds,
            set: o.patch("set")?,
            faults: o.faults("schedule")?,
            order: o.order("order")?,
            seeds: o.seeds("seeds")?,
            path,
            algorithm,
            formula,
        })
    }
}

/// What the spec gives every line unless the line says otherwise.
struct Defaults {
    shuffle: bool,
    seeds: Seeds,
    faults: Vec<Fault>,
    kinds: Option<Vec<String>>,
    /// The node-count axis, if any.
    sizes: Option<Vec<u32>>,
}

fn read_sizes(v: Option<&Value>) -> Result<Option<Vec<u32>>, ScenarioError> {
    let max = crate::scenario::MAX_NODES as u64;
    match v {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_u64().filter(|&n| (1..=max).contains(&n)).map(|n| n as u32))
            .collect::<Option<Vec<u32>>>()
            .map(Some)
            .ok_or_else(|| ScenarioError::new("nodes", format!("expected node counts from 1 to {max}"))),
        Some(v) => {
            let o = Obj::new(v, "nodes", &["from", "to", "step"])?;
            match (o.u64("from")?, o.u64("to")?, o.u64("step")?.unwrap_or(1)) {
                (Some(from), Some(to), step) if from >= 1 && from <= to && to <= max && step >= 1 => {
                    Ok(Some((from..=to).step_by(step as usize).map(|n| n as u32).collect()))
                }
                _ => Err(ScenarioError::new(
                    "nodes",
                    format!(
                        "expected {{\"from\": a, \"to\": b, \"step\": s}} with 1 <= a <= b <= {max}, s >= 1, or a list"
                    ),
                )),
            }
        }
    }
}

fn read_kinds(a: &Algorithm, kinds: &[String], path: &str) -> Result<Vec<&'static str>, ScenarioError> {
    kinds
        .iter()
        .map(|k| {
            a.kind(k)
                .map(|k| k.name)
                .ok_or_else(|| ScenarioError::new(path, format!("{} has no message kind '{k}'", a.id)))
        })
        .collect()
}

impl Sweep {
    pub fn from_json(text: &str) -> Result<Sweep, ScenarioError> {
        crate::scenario::check_size(text.len())?;
        let v: Value = crate::parse_json(text)?;
        Sweep::from_value(&v)
    }

    /// Reads and checks a spec: every line at every node count is built once, so a bad
    /// parameter is reported here, naming the field, not in the middle of the sweep.
    pub fn from_value(v: &Value) -> Result<Sweep, ScenarioError> {
        if !v.is_object() {
            return Err(ScenarioError::new("", "an experiment must be a JSON object"));
        }
        const KEYS: &[&str] = &[
            "title",
            "scenario",
            "algorithms",
            "variants",
            "nodes",
            "order",
            "seeds",
            "schedule",
            "until",
            "measure",
            "divide",
            "kinds",
            "plot",
            "reference",
        ];
        let o = Obj::new(v, "", KEYS)?;
        let measure = match o.str("measure")? {
            None => Measure::Counted,
            Some(m) => Measure::parse(m).ok_or_else(|| {
                let names: Vec<&str> = MEASURES.iter().map(|m| m.0).collect();
                ScenarioError::new("measure", format!("unknown measure '{m}' (expected one of: {})", names.join(", ")))
            })?,
        };
        let until = match o.str("until")? {
            None | Some("end") => Until::End,
            Some("agreement") => Until::Agreement,
            Some(x) => {
                return Err(ScenarioError::new("until", format!("expected \"end\" or \"agreement\", found \"{x}\"")))
            }
        };
        let empty = Map::new();
        let scenario = match o.get("scenario") {
            None => &empty,
            Some(v) => v.as_object().ok_or_else(|| ScenarioError::new("scenario", "expected an object"))?,
        };
        let defaults = Defaults {
            shuffle: o.order("order")?.unwrap_or(false),
            seeds: o.seeds("seeds")?.unwrap_or(Seeds { count: 1, start: 1 }),
            faults: o.faults("schedule")?,
            kinds: o.strings("kinds")?,
            sizes: read_sizes(o.get("nodes"))?,
        };
        let entries: Vec<LineSpec> = match o.get("algorithms") {
            None => {
                let id = scenario.get("algorithm").ok_or_else(|| {
                    ScenarioError::new("algorithms", "give the algorithms, or an algorithm in the scenario")
                })?;
                vec![LineSpec::read(id, "scenario.algorithm".into())?]
            }
            Some(Value::String(s)) if s == "all" => {
                registry::all().iter().map(|a| LineSpec::plain(a, "algorithms".into())).collect()
            }
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, e)| LineSpec::read(e, format!("algorithms[{i}]")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(ScenarioError::new("algorithms", "expected \"all\" or a list")),
        };
        let variants = o.list("variants")?;
        let mut sweep = Sweep {
            title: Label::from_text(&measure.label()),
            measure,
            divide: match o.f64("divide")? {
                None => 1.0,
                Some(d) if d > 0.0 => d,
                Some(d) => return Err(ScenarioError::new("divide", format!("must be above 0, found {d}"))),
            },
            plot: PlotSpec::default(),
            references: Vec::new(),
            lines: Vec::new(),
            jobs: Vec::new(),
            until,
            total: 0,
            shard: None,
            slice: None,
            spec: v.clone(),
            rows: Vec::new(),
            keep_rows: true,
            done: 0,
            tallies: BTreeMap::new(),
            steps: 0,
        };
        for entry in &entries {
            if variants.is_empty() {
                sweep.add_line(scenario, entry, None, &defaults, entries.len())?;
            }
            for (i, v) in variants.iter().enumerate() {
                sweep.add_line(scenario, entry, Some((i, v)), &defaults, entries.len())?;
            }
        }
        if sweep.total > MAX_RUNS {
            return Err(ScenarioError::new(
                "seeds",
                format!("{} runs is more than the {MAX_RUNS} an experiment may have", sweep.total),
            ));
        }
        if let Some(t) = o.label("title")? {
            sweep.title = t;
        }
        if let Some(p) = o.get("plot") {
            let p = Obj::new(p, "plot", &["kind", "x_log", "y_log", "x_min", "x_max", "x_label", "y_label", "x"])?;
            let x = match p.str("x")? {
                None | Some("nodes") => XAxis::Nodes,
                Some("diameter") => XAxis::Diameter,
                Some(x) => {
                    return Err(ScenarioError::new("plot.x", format!("expected nodes or diameter, found \"{x}\"")))
                }
            };
            let kind = match p.str("kind")? {
                None => None,
                Some("lines") => Some(ChartKind::Lines),
                Some("cdf") => Some(ChartKind::Cdf),
                Some("bars") => Some(ChartKind::Bars),
                Some(x) => {
                    return Err(ScenarioError::new("plot.kind", format!("expected lines, cdf or bars, found \"{x}\"")))
                }
            };
            sweep.plot = PlotSpec {
                kind,
                x_log: p.bool("x_log")?,
                y_log: p.bool("y_log")?,
                x_min: p.f64("x_min")?,
                x_max: p.f64("x_max")?,
                x_label: p.label("x_label")?,
                y_label: p.label("y_label")?,
                x,
            };
        }
        for (i, r) in o.list("reference")?.iter().enumerate() {
            let r = Obj::new(r, &format!("reference[{i}]"), &["line", "x", "y", "points", "label"])?;
            let line = match r.str("line")? {
                None => None,
                Some(l) => Some(
                    sweep
                        .lines
                        .iter()
                        .position(|x| x.label.en == l)
                        .ok_or_else(|| ScenarioError::new(r.field("line"), format!("no line is labelled '{l}'")))?,
                ),
            };
            let label = r.label("label")?.ok_or_else(|| ScenarioError::new(r.field("label"), "missing (a text)"))?;
            let (points, curve) = match (r.get("points"), r.f64("x")?, r.f64("y")?) {
                (None, Some(x), Some(y)) => (vec![(x, y)], false),
                (Some(p), None, None) => {
                    let pair = |v: &Value| {
                        Some((v.get(0)?.as_f64()?, v.get(1)?.as_f64()?))
                            .filter(|_| v.as_array().is_some_and(|a| a.len() == 2))
                    };
                    let pts = p
                        .as_array()
                        .and_then(|a| a.iter().map(pair).collect::<Option<Vec<_>>>())
                        .filter(|v| v.len() >= 2);
                    (
                        pts.ok_or_else(|| ScenarioError::new(r.field("points"), "expected at least two [x, y] pairs"))?,
                        true,
                    )
                }
                _ => return Err(ScenarioError::new(&r.path, "give x and y (a point) or points (a curve)")),
            };
            sweep.references.push(Reference { line, label, points, curve });
        }
        Ok(sweep)
    }

    /// Adds the line of `entry` in `variant` (if any): one job per node count, each checked by
    /// building it once.
    fn add_line(
        &mut self,
        scenario: &Map<String, Value>,
        entry: &LineSpec,
        variant: Option<(usize, &Value)>,
        d: &Defaults,
        entries: usize,
    ) -> Result<(), ScenarioError> {
        let a = entry.algorithm;
        let mut base = Value::Object(scenario.clone());
        base["algorithm"] = json!(a.id);
        if let Some(set) = entry.set {
            merge(&mut base, set);
        }
        let mut faults = d.faults.clone();
        faults.extend(entry.faults.iter().cloned());
        let mut seeds = entry.seeds.unwrap_or(d.seeds);
        let mut vlabel = None;
        let mut prefix = entry.path.clone();
        if let Some((vi, v)) = variant {
            prefix = format!("variants[{vi}]");
            let o = Obj::new(v, &prefix, &["label", "set", "schedule", "seeds"])?;
            if let Some(set) = o.patch("set")? {
                merge(&mut base, set);
            }
            faults.extend(o.faults("schedule")?);
            seeds = o.seeds("seeds")?.or(entry.seeds).unwrap_or(d.seeds);
            vlabel = Some(o.label("label")?.ok_or_else(|| ScenarioError::new(o.field("label"), "missing (a text)"))?);
        }
        let label = match (&entry.label, &vlabel) {
            (Some(l), _) => l.clone(),
            (None, Some(v)) if entries == 1 => v.clone(),
            (None, Some(v)) => Label {
                en: format!("{} {}", a.title.get(Lang::En), v.en),
                zh: format!("{} {}", a.title.get(Lang::Zh), v.zh),
            },
            (None, None) => Label::from_text(&a.title),
        };
        let kinds = match (&entry.kinds, entry.formula, &d.kinds) {
            (Some(k), _, _) => k.clone(),
            (None, Some(f), _) => f.counts.to_vec(),
            (None, None, Some(k)) => read_kinds(a, k, "kinds")?,
            (None, None, None) => vec![],
        };
        let line = self.lines.len();
        let sizes: Vec<Option<u32>> = match &d.sizes {
            Some(s) => s.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        for n in sizes {
            let mut sv = base.clone();
            if let Some(n) = n {
                sv["nodes"] = json!((1..=n).collect::<Vec<u32>>());
                super::graph::size_grid(&mut sv, n as usize);
            }
            if let Some(Value::String(who)) = sv.get("initial_leader") {
                let ids = sv
                    .get("nodes")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_u64).collect::<Vec<u64>>())
                    .unwrap_or_default();
                let pick = match who.as_str() {
                    "max" => ids.iter().max(),
                    "min" => ids.iter().min(),
                    _ => {
                        return Err(ScenarioError::new(
                            format!("{prefix}: scenario.initial_leader"),
                            "expected a node id, \"max\" or \"min\"",
                        ))
                    }
                };
                sv["initial_leader"] = json!(pick);
            }
            let scenario = Scenario::from_value(&sv).map_err(|e| e.within(&format!("{prefix}: scenario")))?;
            // Check the faults on these nodes, and the algorithm's params, once.
            let mut rng = Pcg32::new(seeds.start, STREAM);
            let mut probe = scenario.clone();
            for (i, f) in faults.iter().enumerate() {
                for act in f.what.resolve(&probe.nodes, probe.nodes.first().copied(), &mut rng) {
                    act.validate(&probe.nodes, &format!("{prefix}: schedule[{i}]"))?;
                    if let Some(at) = f.at {
                        probe.schedule.push(Scheduled { at, action: act });
                    }
                }
            }
            Engine::new(probe).map_err(|e| e.within(&format!("{prefix}: scenario")))?;
            self.jobs.push(Job { line, scenario, first: self.total });
            self.total = self.total.saturating_add(seeds.count);
        }
        self.lines.push(Line {
            label,
            algorithm: a,
            variant: vlabel,
            formula: entry.formula,
            kinds,
            seeds,
            shuffle: entry.order.unwrap_or(d.shuffle),
            faults,
        });
        Ok(())
    }
}
