//! Paging on the wire: limit, page_info cursors, updated_at_min and the Link header.
