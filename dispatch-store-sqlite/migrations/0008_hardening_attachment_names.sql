-- Attachments keep the uploaded name for display only and are stored and served under a
-- sanitised one (dispatch_core::model::attachment::safe_file_name). Files uploaded before this
-- migration get a name made of their id and extension alone: their uploaded name is not trusted.
ALTER TABLE order_attachments ADD COLUMN file_name TEXT NOT NULL DEFAULT '';
UPDATE order_attachments SET file_name = 'attachment-' || id || '.' || ext;
