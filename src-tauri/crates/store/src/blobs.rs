//! Content-addressed blobs (file pre/post images for diffs and revert).

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::{ContentHash, Timestamp};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

/// SHA-256 of `bytes` as a content hash.
pub fn hash_bytes(bytes: &[u8]) -> ContentHash {
    ContentHash::from_digest(Sha256::digest(bytes).into())
}

impl Store {
    /// Stores `bytes` once under their SHA-256 and returns the hash.
    pub fn put_blob(&self, bytes: &[u8], at: Timestamp) -> Result<ContentHash, StoreError> {
        let hash = hash_bytes(bytes);
        let guard = self.writer()?;
        guard.conn.execute(
            "INSERT OR IGNORE INTO blobs (hash, size, content, created_ms) VALUES (?1, ?2, ?3, ?4)",
            params![hash.as_str(), bytes.len() as i64, bytes, at.unix_millis()],
        )?;
        Ok(hash)
    }

    /// Stores many blobs in one transaction (a workspace snapshot keeps
    /// thousands at once); returns their hashes in order.
    pub fn put_blobs<'a>(
        &self,
        items: impl IntoIterator<Item = &'a [u8]>,
        at: Timestamp,
    ) -> Result<Vec<ContentHash>, StoreError> {
        let mut guard = self.writer()?;
        let tx = guard.conn.transaction()?;
        let mut hashes = Vec::new();
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR IGNORE INTO blobs (hash, size, content, created_ms) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for bytes in items {
                let hash = hash_bytes(bytes);
                insert.execute(params![
                    hash.as_str(),
                    bytes.len() as i64,
                    bytes,
                    at.unix_millis()
                ])?;
                hashes.push(hash);
            }
        }
        tx.commit()?;
        Ok(hashes)
    }

    pub fn get_blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, StoreError> {
        let conn = self.reader()?;
        let content = conn
            .prepare_cached("SELECT content FROM blobs WHERE hash = ?1")?
            .query_row([hash.as_str()], |r| r.get(0))
            .optional()?;
        Ok(content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_store;

    #[test]
    fn blobs_are_stored_once_by_content() {
        let (_dir, store) = temp_store();
        let at = Timestamp::from_unix_millis(0).unwrap();
        let h1 = store.put_blob(b"hello", at).unwrap();
        let h2 = store.put_blob(b"hello", at).unwrap();
        assert_eq!(h1, h2);
        assert_eq!(
            h1.as_str(),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(store.get_blob(&h1).unwrap().unwrap(), b"hello");
        assert_eq!(store.get_blob(&hash_bytes(b"other")).unwrap(), None);
    }
}
