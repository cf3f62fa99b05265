//! The local tool search (SPEC §15): a BM25 index over the deferred tools' names, titles,
//! descriptions and parameters, built once per toolkit.

mod answer;
mod tokens;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::tool::Tool;

/// BM25's term-frequency saturation and length normalisation, the usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much each part of a tool counts: a word of the name says more than one of the
/// description.
const NAME_WEIGHT: u32 = 3;
const TITLE_WEIGHT: u32 = 2;
const PARAMETER_WEIGHT: u32 = 1;
const DESCRIPTION_WEIGHT: u32 = 1;

/// An inverted index of the deferred tools: for each word, the tools that use it and how
/// often (weighted by where).
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    /// Each indexed tool's position in the toolkit, and its weighted length in words.
    docs: Vec<(usize, u32)>,
    postings: HashMap<String, Vec<(u32, u32)>>,
    average_length: f64,
}

impl SearchIndex {
    /// Indexes the tools at `positions` of `tools`.
    pub(crate) fn build(tools: &[Arc<dyn Tool>], positions: impl Iterator<Item = usize>) -> Self {
        let mut index = Self::default();
        let mut total = 0u64;
        for position in positions {
            let doc = u32::try_from(index.docs.len()).unwrap_or(u32::MAX);
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0u32;
            let mut add = |text: &str, weight: u32| {
                tokens::words(text, |word| {
                    *counts.entry(word).or_insert(0) += weight;
                    length += weight;
                });
            };
            let tool = tools[position].as_ref();
            add(tool.name(), NAME_WEIGHT);
            add(tool.title().unwrap_or_default(), TITLE_WEIGHT);
            add(tool.description(), DESCRIPTION_WEIGHT);
            for (name, schema) in properties(tool.input_schema()) {
                add(name, PARAMETER_WEIGHT);
                let described = schema.get("description").and_then(Value::as_str);
                add(described.unwrap_or_default(), DESCRIPTION_WEIGHT);
            }
            for (word, count) in counts {
                index.postings.entry(word).or_default().push((doc, count));
            }
            index.docs.push((position, length));
            total += u64::from(length);
        }
        index.average_length = total as f64 / index.docs.len().max(1) as f64;
        index
    }

    /// Whether no tool is indexed (none is deferred).
    pub(crate) fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The positions of the (at most) `limit` tools that best match `query`, best first;
    /// tools matching no word of it are left out, ties keep registration order.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut scores = vec![0.0f64; self.docs.len()];
        let count = self.docs.len() as f64;
        let mut seen = Vec::new();
        tokens::words(query, |word| {
            if seen.contains(&word) {
                return;
            }
            if let Some(postings) = self.postings.get(&word) {
                let df = postings.len() as f64;
                let idf = (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
                for &(doc, tf) in postings {
                    let length = f64::from(self.docs[doc as usize].1);
                    let tf = f64::from(tf);
                    let norm = K1 * (1.0 - B + B * length / self.average_length);
                    scores[doc as usize] += idf * tf * (K1 + 1.0) / (tf + norm);
                }
            }
            seen.push(word);
        });
        let mut ranked: Vec<(usize, f64)> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, score)| *score > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(doc, _)| self.docs[doc].0)
            .collect()
    }
}

/// The top-level parameters of an input schema: each name with its schema.
fn properties(schema: &Map<String, Value>) -> impl Iterator<Item = (&str, &Map<String, Value>)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, schema)| Some((name.as_str(), schema.as_object()?)))
}
