//! The paths of a `use` tree: `a::{b, c::d as e, f::*}`.

use crate::lex::{Kind, Tok};

/// One path of a use tree and the name it brings into scope (`None` for
/// a glob).
pub type UsePath = (Vec<String>, Option<String>);

/// The paths of the tree in `toks` (the tokens between `use` and `;`).
pub fn parse_use(toks: &[Tok]) -> Vec<UsePath> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let before = k;
        tree(toks, &mut k, &[], &mut out);
        if k == before {
            k += 1;
        }
    }
    out
}

fn at(toks: &[Tok], k: usize) -> Option<&Tok> {
    toks.get(k)
}

fn tree(toks: &[Tok], k: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segs = prefix.to_vec();
    while let Some(t) = at(toks, *k) {
        if t.is("::") {
            *k += 1;
        } else if t.is("{") {
            *k += 1;
            group(toks, k, &segs, out);
            return;
        } else if t.is("*") {
            *k += 1;
            out.push((segs, None));
            return;
        } else if t.kind == Kind::Ident && t.text != "pub" {
            segs.push(t.text.clone());
            *k += 1;
            if at(toks, *k).is_some_and(|n| n.is("::")) {
                continue;
            }
            leaf(toks, k, segs, out);
            return;
        } else {
            *k += 1;
            return;
        }
    }
}

fn group(toks: &[Tok], k: &mut usize, segs: &[String], out: &mut Vec<UsePath>) {
    while let Some(t) = at(toks, *k) {
        if t.is("}") {
            *k += 1;
            return;
        }
        if t.is(",") {
            *k += 1;
            continue;
        }
        let before = *k;
        tree(toks, k, segs, out);
        if *k == before {
            *k += 1;
        }
    }
}

fn leaf(toks: &[Tok], k: &mut usize, mut segs: Vec<String>, out: &mut Vec<UsePath>) {
    if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
        segs.pop();
    }
    let mut alias = segs.last().cloned();
    if at(toks, *k).is_some_and(|t| t.is("as")) {
        alias = at(toks, *k + 1).map(|t| t.text.clone());
        *k += 2;
    }
    out.push((segs, alias));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex;

    #[test]
    fn trees_flatten_into_paths() {
        let toks = lex("crate::a::{self, b::C as D, e::*, f::{g, h}}");
        let paths = parse_use(&toks);
        let show: Vec<String> = paths
            .iter()
            .map(|(s, a)| format!("{}={}", s.join("::"), a.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            show,
            [
                "crate::a=a",
                "crate::a::b::C=D",
                "crate::a::e=",
                "crate::a::f::g=g",
                "crate::a::f::h=h"
            ]
        );
    }
}
