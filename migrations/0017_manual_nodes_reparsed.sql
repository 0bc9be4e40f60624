-- A Markdown file's last sections now end at its last line of content, not
-- over the link reference definitions gathered after them
-- (manualfile.parseMarkdown). Nodes stored by the parser before would keep
-- their old lines and text while manual_toc and manual_read parse afresh,
-- and two servers would cut one file two ways: every manual file is read
-- and indexed again on its next refresh (a size and a hash no file has).
UPDATE manual_files SET size = -1, content_hash = '';
