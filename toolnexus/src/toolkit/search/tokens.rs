//! Words of a tool's text for the search index: identifiers split (`list_pull_requests`,
//! `listPullRequests` ⇒ `list pull request`), lowercased, plurals folded, filler words dropped.

/// Words too common in tool descriptions to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "for", "from", "if", "in", "is", "it",
    "its", "of", "on", "or", "that", "the", "this", "to", "with",
];

/// Calls `each` with every word of `text`, in order.
pub(crate) fn words(text: &str, mut each: impl FnMut(String)) {
    for chunk in text.split(|c: char| !c.is_alphanumeric()) {
        split_case(chunk, |word| {
            let word = fold(&word.to_lowercase());
            if !word.is_empty() && !STOP_WORDS.contains(&word.as_str()) {
                each(word);
            }
        });
    }
}

/// `getPullRequest` ⇒ `get`, `Pull`, `Request`; `HTMLParser` ⇒ `HTML`, `Parser`; digits stay
/// with the letters before them (`ec2`, `v3`).
fn split_case(chunk: &str, mut each: impl FnMut(&str)) {
    let chars: Vec<(usize, char)> = chunk.char_indices().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = c.is_uppercase()
            && (prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower));
        if boundary {
            each(&chunk[start..at]);
            start = at;
        }
    }
    if start < chunk.len() {
        each(&chunk[start..]);
    }
}

/// A light plural fold, enough for tool vocabulary: `repositories` ⇒ `repository`, `issues`
/// ⇒ `issue`, `branches` ⇒ `branch`, `files` ⇒ `file`; `address`, `status`, `process` stay.
fn fold(word: &str) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..word.len() - 3]);
    }
    // `branches`, `switches`, `boxes`, `addresses`: the plural adds `es`.
    if word.len() > 4
        && ["ches", "shes", "xes", "sses", "zes"]
            .iter()
            .any(|end| word.ends_with(end))
    {
        return word[..word.len() - 2].to_owned();
    }
    let keeps_s = ["ss", "us", "is", "os"]
        .iter()
        .any(|end| word.ends_with(end));
    if word.len() > 3 && word.ends_with('s') && !keeps_s {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::words;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |word| out.push(word));
        out
    }

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(all("list_pull_requests"), ["list", "pull", "request"]);
        assert_eq!(all("listPullRequests"), ["list", "pull", "request"]);
        assert_eq!(all("HTMLParser for ec2"), ["html", "parser", "ec2"]);
        assert_eq!(all("get-file-contents"), ["get", "file", "content"]);
    }

    #[test]
    fn plurals_fold_and_filler_words_drop() {
        assert_eq!(all("Search the repositories"), ["search", "repository"]);
        assert_eq!(all("status of a process"), ["status", "process"]);
        assert_eq!(
            all("switches branches, addresses"),
            ["switch", "branch", "address"]
        );
    }
}
