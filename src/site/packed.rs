//! Lists of short strings in one allocation each: what a build keeps of every page until it
//! has them all (its link scan, its search terms), 120,000 pages' in a large report, where a
//! `String` per item held several hundred MB more.

/// Strings in one buffer, each ending at its offset in `ends`.
#[derive(Debug, Default)]
pub struct Packed {
    text: Box<str>,
    ends: Box<[u32]>,
}

impl Packed {
    /// `strings`, in their order.
    pub fn new<'s>(strings: impl Iterator<Item = &'s str>) -> Packed {
        let mut text = String::new();
        let mut ends = Vec::new();
        for string in strings {
            text.push_str(string);
            ends.push(u32::try_from(text.len()).expect("a page's strings under 4 GB"));
        }
        Packed {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }

    fn get(&self, index: usize) -> &str {
        let start = index.checked_sub(1).map_or(0, |i| self.ends[i] as usize);
        &self.text[start..self.ends[index] as usize]
    }

    /// The strings, in their order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i))
    }

    /// Whether `string` is among these, which are sorted.
    pub fn contains_sorted(&self, string: &str) -> bool {
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.get(middle).cmp(string) {
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_in_order_and_a_sorted_list_answers_for_each() {
        let packed = Packed::new(["", "a", "ab", "b", "é"].into_iter());
        assert_eq!(packed.iter().collect::<Vec<_>>(), ["", "a", "ab", "b", "é"]);
        for s in ["", "a", "ab", "b", "é"] {
            assert!(packed.contains_sorted(s), "{s:?}");
        }
        for s in ["aa", "ba", "c", "A"] {
            assert!(!packed.contains_sorted(s), "{s:?}");
        }
        assert_eq!(Packed::default().iter().count(), 0);
        assert!(!Packed::default().contains_sorted(""));
    }
}
