-- Where to enter a long posting list part way (wordindex.Term.Skips): every
-- 1,024 postings, the byte offset and the ordinal counted from. Search
-- ranks the two halves of a snapshot's sections on two cores with them.
-- NULL for lists of 1,024 postings or fewer; the Go step after this file
-- fills the lists stored before it.
ALTER TABLE word_postings ADD COLUMN skips BLOB;
