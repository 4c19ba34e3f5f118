//! The core's JSON reader and writer (`parse_json`, `write_json`, `write_json_pretty`), which the
//! player uses instead of serde_json (issue 29), against serde_json itself: every preset, lesson,
//! experiment and sample file, every preset's trace, and many generated numbers and strings read
//! to the same values and write to the same bytes; bad text is refused with serde_json's words
//! and position.

use election_lab::lesson::course;
use election_lab::{parse_json, presets, write_json, write_json_pretty, Engine};
use election_lab_core::rng::Pcg32;
use serde_json::{json, Value};
use std::path::Path;

/// Reads `text` both ways, then writes what was read both ways, compact and pretty.
fn same(text: &str) {
    let ours = parse_json(text).unwrap_or_else(|e| panic!("{e}: {text:.200}"));
    let theirs: Value = serde_json::from_str(text).unwrap();
    assert_eq!(ours, theirs, "{text:.200}");
    same_out(&theirs);
}

fn same_out(v: &Value) {
    assert_eq!(write_json(v), serde_json::to_string(v).unwrap());
    assert_eq!(write_json_pretty(v), serde_json::to_string_pretty(v).unwrap());
}

fn json_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

#[test]
fn presets_lessons_experiments_and_samples_read_and_write_as_serde_json_does() {
    for p in presets::all() {
        same(p.json);
    }
    for id in course::ids() {
        same(course::source(&id).unwrap());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["experiments", "crate/tests/data", "www"] {
        json_files(&root.join(dir), &mut files);
    }
    files.retain(|f| !f.to_string_lossy().contains("node_modules") && !f.ends_with("package-lock.json"));
    assert!(files.len() > 10, "the scan found the samples: {files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if serde_json::from_str::<Value>(&text).is_ok() {
            same(&text);
        }
    }
}

#[test]
fn every_presets_trace_writes_as_serde_json_writes_it() {
    for p in presets::all() {
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run(300);
        let v = e.trace_value();
        same_out(&v);
        same(&serde_json::to_string(&v).unwrap());
    }
}

#[test]
fn numbers_read_to_the_same_bits_and_write_the_same_digits() {
    let mut rng = Pcg32::for_seed(29);
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "1",
        "-1",
        "0.1",
        "0.5",
        "2.5",
        "-2.5",
        "1e16",
        "1e15",
        "123456789012345680000",
        "1e-5",
        "1e-6",
        "0.0001",
        "0.00001234",
        "1.7976931348623157e308",
        "5e-324",
        "2.2250738585072014e-308",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1844674407370955161.05",
        "184467440737095516159.999",
        "0.1000000000000000000000000001",
        "-1e-400000000000",
        "0e999999999999",
        "1.5E+3",
        "1.5e-3",
        "123.456e7",
        "9007199254740993",
        "0.30000000000000004",
        "1e-320",
        "4.9e-324",
        "2.4703282292062328e-324",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..20_000 {
        let x = f64::from_bits(rng.next_u64());
        if x.is_finite() {
            texts.push(serde_json::to_string(&x).unwrap());
            texts.push(format!("{x:e}"));
            texts.push(format!("{x}"));
        }
        let (int, frac, exp) = (rng.next_u64() >> (rng.next_u32() % 64), rng.next_u64() % 100_000, rng.next_u32() % 40);
        texts.push(format!("{int}.{frac:05}e-{exp}"));
        texts.push(format!("-{}.{}", rng.next_u32() % 1000, rng.next_u32() % 100));
        texts.push(format!("{}", rng.next_u64() as i64));
        // Halfway cases: quarters and halves near 2^53, where the 17th digit is a tie.
        let q = (rng.next_u64() >> 11) as f64 / f64::from(1u32 << (rng.next_u32() % 4));
        texts.push(serde_json::to_string(&q).unwrap());
        same_out(&json!(q * 10f64.powi(rng.next_u32() as i32 % 40 - 20)));
    }
    for t in &texts {
        let ours = parse_json(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        let theirs: Value = serde_json::from_str(t).unwrap();
        assert_eq!(ours, theirs, "{t}");
        if let (Some(a), Some(b)) = (ours.as_f64(), theirs.as_f64()) {
            assert_eq!(a.to_bits(), b.to_bits(), "{t}");
        }
        same_out(&theirs);
    }
    for x in [0.1, -0.0, 1e21, 1e-7, 123.0, 1.0 / 3.0, f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e16, 1e16 - 2.0] {
        same_out(&json!(x));
    }
}

#[test]
fn strings_read_and_write_every_escape_as_serde_json_does() {
    let mut all: String = (0u32..0x80).filter_map(char::from_u32).collect();
    all.push_str("é中😀\u{7f}\u{2028}/");
    same_out(&json!({ all.clone(): [all.clone(), {"": ""}, [], {}, [[]], null, true, false] }));
    for text in [
        r#""\u00e9\n\t\r\b\f\/\\\"""#,
        r#""\ud83d\ude00 \uD83D\uDE00 \u0000 \u001F \u00ff""#,
        "\"\u{7f} é 中 😀\"",
        r#"{"a":{"b":[1,{"c":"d"}]},"e":[]}"#,
        " \n\t\r[ 1 , 2 ]\n ",
    ] {
        same(text);
    }
}

#[test]
fn bad_text_is_refused_with_serde_jsons_words_and_place() {
    let bad = [
        "",
        " ",
        "{",
        "[",
        "[1",
        "[1,",
        "[1,]",
        "[1 2]",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:2}",
        "{\"a\":1 \"b\":2}",
        "nul",
        "nulx",
        "tru",
        "fals",
        "x",
        "-",
        "-x",
        "01",
        "1.",
        "1.x",
        "1.e5",
        "1e",
        "1e+",
        "1ex",
        ".5",
        "1 2",
        "[1]x",
        "\"abc",
        "\"a\\",
        "\"a\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"\\ud800\"",
        "\"\\ud800\\x\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "\"a\nb\"",
        "\"\u{1}\"",
        "1e309",
        "-1e309",
        "123456789012345678901234567890e300",
        "1e99999999999",
        "1e400000000000",
        "\n\n  [1,\n  x]",
        "[\"a\",\n{\"b\": tru}]",
        "{\"a\":[}",
        "[{]",
        "\"\\",
        "\"\\u",
        "\"\\ud800",
        "\"\\ud800\\",
    ];
    for t in bad {
        let theirs = serde_json::from_str::<Value>(t).unwrap_err().to_string();
        let ours = parse_json(t).unwrap_err().to_string();
        assert_eq!(ours, format!("not valid JSON: {theirs}"), "{t:?}");
    }
    let deep = "[".repeat(200);
    let theirs = serde_json::from_str::<Value>(&deep).unwrap_err().to_string();
    assert_eq!(parse_json(&deep).unwrap_err().to_string(), format!("not valid JSON: {theirs}"));
    let ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
    same(&ok);
}
