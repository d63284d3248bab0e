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

    /// Writes the strings in the form [`Packed::read_from`] reads: the count, each end, the
    /// text's length and the text, numbers as little-endian `u32`.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        out.write_all(&(self.ends.len() as u32).to_le_bytes())?;
        for end in &self.ends {
            out.write_all(&end.to_le_bytes())?;
        }
        out.write_all(&(self.text.len() as u32).to_le_bytes())?;
        out.write_all(self.text.as_bytes())
    }

    /// Strings [`Packed::write_to`] wrote; an error when they are not such strings.
    pub fn read_from<R: std::io::Read>(input: &mut R) -> std::io::Result<Packed> {
        fn number(input: &mut impl std::io::Read) -> std::io::Result<u32> {
            let mut bytes = [0; 4];
            input.read_exact(&mut bytes)?;
            Ok(u32::from_le_bytes(bytes))
        }
        let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
        let count = number(input)? as usize;
        let mut ends = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            ends.push(number(input)?);
        }
        let length = number(input)? as usize;
        let mut text = Vec::with_capacity(length.min(1 << 24));
        std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut *input, length as u64),
            &mut text,
        )?;
        let text = String::from_utf8(text).map_err(|_| invalid())?;
        let mut start = 0;
        for &end in &ends {
            let end = end as usize;
            if end < start || !text.is_char_boundary(end) {
                return Err(invalid());
            }
            start = end;
        }
        if text.len() != length || start != length {
            return Err(invalid());
        }
        Ok(Packed {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        })
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

    #[test]
    fn written_strings_read_back_and_damaged_ones_are_refused() {
        let packed = Packed::new(["", "a", "ab", "é"].into_iter());
        let mut bytes = Vec::new();
        packed.write_to(&mut bytes).unwrap();
        // By hand: 4 ends, then the text's 5 bytes ("aabé" with é as two).
        assert_eq!(bytes.len(), 4 + 4 * 4 + 4 + 5);
        let back = Packed::read_from(&mut bytes.as_slice()).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), ["", "a", "ab", "é"]);
        // Cut short, an end inside é, an end past the text.
        assert!(Packed::read_from(&mut &bytes[..bytes.len() - 1]).is_err());
        let mut inside = bytes.clone();
        inside[16..20].copy_from_slice(&4u32.to_le_bytes());
        assert!(Packed::read_from(&mut inside.as_slice()).is_err());
        let mut past = bytes.clone();
        past[16..20].copy_from_slice(&9u32.to_le_bytes());
        assert!(Packed::read_from(&mut past.as_slice()).is_err());
    }
}
