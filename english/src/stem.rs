//! A light English stemmer and fuzzy stem matching.

use super::number_words::small_number_word;

/// A light English stemmer: folds plurals, -ing, -ed, -er, -ly, -ion and a
/// final -e so that related forms ("tuner"/"tuning", "located"/"location")
/// meet. Small number words become digits so "ten" meets "10".
pub fn stem(word: &str) -> String {
    let mut w: String = if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
        word.to_lowercase()
    } else {
        word.to_string()
    };
    if let Some(s) = w.strip_suffix("'s") {
        w = s.to_string();
    }
    w.retain(|c| c != '\'');
    if let Some(v) = small_number_word(&w) {
        return v.to_string();
    }
    let irregular = match w.as_str() {
        "people" | "persons" => Some("person"),
        "children" => Some("child"),
        "daily" => Some("day"),
        "men" => Some("man"),
        "women" => Some("woman"),
        "lbs" | "lb" => Some("pound"),
        "mins" => Some("minut"),
        "hrs" => Some("hour"),
        "yrs" => Some("year"),
        _ => None,
    };
    if let Some(s) = irregular {
        return s.to_string();
    }
    let len = |s: &str| s.chars().count();
    if len(&w) > 4 {
        if let Some(s) = w.strip_suffix("ies") {
            w = format!("{s}y");
        } else if let Some(s) = w.strip_suffix("sses") {
            w = format!("{s}ss");
        } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is")
        {
            w.pop();
        }
    } else if len(&w) > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        w.pop();
    }
    for suf in ["ing", "ed"] {
        if let Some(s) = w.strip_suffix(suf)
            && len(s) >= 3
            && s.chars().any(is_vowel)
        {
            w = s.to_string();
            let cs: Vec<char> = w.chars().collect();
            if let [.., a, b] = cs.as_slice()
                && a == b
                && !is_vowel(*a)
                && !matches!(a, 'l' | 's' | 'z')
                && cs.len() > 3
            {
                w.pop();
            }
            break;
        }
    }
    if let Some(s) = w.strip_suffix("ion")
        && len(s) >= 3
    {
        w = s.to_string();
    }

    if let Some(s) = w.strip_suffix("ly")
        && len(s) >= 3
    {
        w = s.to_string();
    }
    if let Some(s) = w.strip_suffix("er")
        && len(s) >= 3
    {
        w = s.to_string();
    }
    if len(&w) >= 4
        && let Some(s) = w.strip_suffix('e')
    {
        w = s.to_string();
    }
    w
}

/// Vowels for the stemmer (`y` included).
fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// Whether two stems should be treated as the same word: equal, or sharing a
/// long common prefix ("satisfact"/"satisfi").
pub fn stems_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Byte-wise: a common byte prefix of UTF-8 text is a common char prefix
    // (up to a partial last char), which is all this ratio needs.
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let min = a.len().min(b.len());
    if min < 5 || a[0] != b[0] {
        return false;
    }
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    common >= 5 && common * 5 >= min * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("tuning"), stem("tuner"));
        assert_eq!(stem("located"), stem("location"));
        assert!(stems_match(&stem("satisfied"), &stem("satisfaction")));
        assert_eq!(stem("hourly"), "hour");
    }
}
