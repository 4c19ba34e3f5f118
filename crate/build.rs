//! Reads the English text catalog (`i18n/en.json`) and generates, in `$OUT_DIR/catalog.rs`:
//! one constant per key (`k::BULLY_NOTE_START` for `bully.note.start`), so that a key that does
//! not exist is a compile error; the English strings, compiled in (English ships with the
//! page); the keys' names and their hashes (a fetched catalog is read by hash, so the page does
//! not carry the names); and each key's argument names
//! in the order the code passes them. `zh.json` is not read here: natively it is included by
//! `meta.rs`, and the page fetches it when Chinese is chosen.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let en_path = Path::new(&dir).join("i18n").join("en.json");
    println!("cargo:rerun-if-changed=i18n/en.json");
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(&en_path).unwrap_or_else(|e| panic!("{}: {e}", en_path.display()));
    let value = json::parse(&text).unwrap_or_else(|e| panic!("i18n/en.json: {e}"));
    let json::Value::Object(entries) = value else { panic!("i18n/en.json: not an object") };
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut declared: Vec<(String, Vec<String>)> = Vec::new();
    for (key, v) in entries {
        match (key.as_str(), v) {
            ("@args", json::Value::Object(list)) => {
                for (k, names) in list {
                    let json::Value::Array(names) = names else { panic!("i18n/en.json: @args.{k}: not a list") };
                    let names = names
                        .into_iter()
                        .map(|n| match n {
                            json::Value::String(s) => s,
                            _ => panic!("i18n/en.json: @args.{k}: not a list of names"),
                        })
                        .collect();
                    declared.push((k, names));
                }
            }
            (_, json::Value::String(s)) => texts.push((key, s)),
            _ => panic!("i18n/en.json: {key}: not a string"),
        }
    }
    texts.sort();
    for w in texts.windows(2) {
        assert!(w[0].0 != w[1].0, "i18n/en.json: key {} twice", w[0].0);
    }
    for (k, _) in &declared {
        assert!(texts.iter().any(|(t, _)| t == k), "i18n/en.json: @args names the unknown key {k}");
    }
    assert!(texts.len() < u16::MAX as usize, "too many keys for a u16");

    let mut out = String::new();
    out.push_str("/// The catalog keys, one constant each (generated from `crate/i18n/en.json`).\n");
    out.push_str("pub mod k {\n    use super::Text;\n");
    let mut consts = std::collections::BTreeSet::new();
    for (i, (key, en)) in texts.iter().enumerate() {
        let name: String =
            key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
        assert!(consts.insert(name.clone()), "i18n/en.json: two keys give the constant {name}");
        let doc: String = en.chars().take(100).collect::<String>().replace('\n', " ");
        writeln!(out, "    /// `{key}`: {}", doc.replace('`', "'")).unwrap();
        writeln!(out, "    pub const {name}: Text = Text({i});").unwrap();
    }
    out.push_str("}\n\n");
    writeln!(out, "/// The number of keys.\npub const KEYS_LEN: usize = {};", texts.len()).unwrap();
    out.push_str("/// The key names, sorted (a key's index is its position).\n");
    writeln!(out, "pub static KEY_NAMES: [&str; {}] = [", texts.len()).unwrap();
    for (key, _) in &texts {
        writeln!(out, "    {key:?},").unwrap();
    }
    out.push_str(
        "];\n/// Each key's hash (`meta::key_hash`), by key index: how a fetched catalog finds its keys, so\n",
    );
    out.push_str("/// that the page does not carry the key names.\n");
    writeln!(out, "pub static KEY_HASHES: [u32; {}] = [", texts.len()).unwrap();
    let mut hashes = std::collections::BTreeSet::new();
    for (key, _) in &texts {
        let h = key_hash(key);
        assert!(hashes.insert(h), "i18n/en.json: two keys share the hash {h:#x}; change key_hash's offset");
        writeln!(out, "    {h:#010x},").unwrap();
    }
    out.push_str("];\n/// The English texts, by key index.\n");
    writeln!(out, "pub static EN: [&str; {}] = [", texts.len()).unwrap();
    for (_, en) in &texts {
        writeln!(out, "    {en:?},").unwrap();
    }
    out.push_str("];\n/// Each key's argument names, in the order the code passes them.\n");
    writeln!(out, "pub static ARGS: [&[&str]; {}] = [", texts.len()).unwrap();
    for (key, en) in &texts {
        let names = match declared.iter().find(|(k, _)| k == key) {
            Some((_, names)) => names.clone(),
            None => placeholders(en),
        };
        writeln!(out, "    &{names:?},").unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalog.rs");
    std::fs::write(dest, out).unwrap();
}

/// FNV-1a over the key's bytes (the same function as `meta::key_hash`).
fn key_hash(key: &str) -> u32 {
    key.bytes().fold(0x811c_9dc5, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

/// The names of `{name}` placeholders, in order of first appearance.
fn placeholders(t: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = t;
    while let Some(at) = rest.find('{') {
        let tail = &rest[at + 1..];
        let len = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
        if len > 0
            && (tail[len..].starts_with('}') || tail[len..].starts_with(':'))
            && tail.as_bytes()[0].is_ascii_lowercase()
        {
            let n = &tail[..len];
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
        rest = tail;
    }
    out
}

/// Just enough JSON for the catalog: objects, arrays and strings (in key order).
mod json {
    pub enum Value {
        String(String),
        Array(Vec<Value>),
        Object(Vec<(String, Value)>),
    }

    pub fn parse(s: &str) -> Result<Value, String> {
        let mut p = P { s: s.as_bytes(), i: 0, text: s };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.err("text after the end"));
        }
        Ok(v)
    }

    struct P<'a> {
        s: &'a [u8],
        i: usize,
        text: &'a str,
    }

    impl P<'_> {
        fn err(&self, what: &str) -> String {
            let line = self.text[..self.i.min(self.text.len())].matches('\n').count() + 1;
            format!("line {line}: {what}")
        }
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                Ok(())
            } else {
                Err(self.err(&format!("expected '{}'", c as char)))
            }
        }
        fn value(&mut self) -> Result<Value, String> {
            self.ws();
            match self.s.get(self.i) {
                Some(b'"') => Ok(Value::String(self.string()?)),
                Some(b'[') => {
                    self.i += 1;
                    let mut v = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Ok(Value::Array(v));
                    }
                    loop {
                        v.push(self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Ok(Value::Array(v));
                            }
                            _ => return Err(self.err("expected ',' or ']'")),
                        }
                    }
                }
                Some(b'{') => {
                    self.i += 1;
                    let mut v = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Ok(Value::Object(v));
                    }
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.eat(b':')?;
                        v.push((k, self.value()?));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Value::Object(v));
                            }
                            _ => return Err(self.err("expected ',' or '}'")),
                        }
                    }
                }
                _ => Err(self.err("expected a string, a list or an object")),
            }
        }
        fn string(&mut self) -> Result<String, String> {
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a string"));
            }
            self.i += 1;
            let mut out = String::new();
            let start = self.i;
            let mut run = start;
            loop {
                match self.s.get(self.i) {
                    None => return Err(self.err("unterminated string")),
                    Some(b'"') => {
                        out.push_str(&self.text[run..self.i]);
                        self.i += 1;
                        return Ok(out);
                    }
                    Some(b'\\') => {
                        out.push_str(&self.text[run..self.i]);
                        let c = *self.s.get(self.i + 1).ok_or_else(|| self.err("bad escape"))?;
                        self.i += 2;
                        match c {
                            b'n' => out.push('\n'),
                            b't' => out.push('\t'),
                            b'r' => out.push('\r'),
                            b'"' => out.push('"'),
                            b'\\' => out.push('\\'),
                            b'/' => out.push('/'),
                            b'u' => {
                                let hex = self.text.get(self.i..self.i + 4).ok_or_else(|| self.err("bad \\u"))?;
                                let mut code = u32::from_str_radix(hex, 16).map_err(|_| self.err("bad \\u"))?;
                                self.i += 4;
                                if (0xd800..0xdc00).contains(&code) && self.text.get(self.i..self.i + 2) == Some("\\u")
                                {
                                    let lo =
                                        self.text.get(self.i + 2..self.i + 6).ok_or_else(|| self.err("bad \\u"))?;
                                    let lo = u32::from_str_radix(lo, 16).map_err(|_| self.err("bad \\u"))?;
                                    code = 0x10000 + ((code - 0xd800) << 10) + (lo - 0xdc00);
                                    self.i += 6;
                                }
                                out.push(char::from_u32(code).ok_or_else(|| self.err("bad \\u"))?);
                            }
                            _ => return Err(self.err("bad escape")),
                        }
                        run = self.i;
                    }
                    Some(_) => self.i += 1,
                }
            }
        }
    }
}
