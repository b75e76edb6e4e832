/**
 * Every option the MariaDB 10.11 client programs that read `[client]` list
 * in `--help` (mariadb, mariadb-dump, mariadb-admin, mariadb-check,
 * mariadb-import, mariadb-show, mariadb-slap, mariadb-upgrade,
 * mariadb-binlog), with `_` for `-`. A server option that none of them knows
 * makes each client that reads the group stop with "unknown variable"
 * (verified: `mariadb: unknown variable 'innodb_buffer_pool_size=1G'`, exit
 * status 7). test/oracle/mycnf-rules-oracle.test.ts checks the list against the
 * installed clients.
 */
const CLIENT_OPTIONS = `
abort_source_on_error add_drop_database add_drop_table add_drop_trigger add_locks all_databases all_in_1
all_tablespaces allow_keywords analyze apply_slave_statements as_of auto_generate_sql
auto_generate_sql_add_autoincrement auto_generate_sql_execute_number auto_generate_sql_guid_primary
auto_generate_sql_load_type auto_generate_sql_secondary_indexes auto_generate_sql_unique_query_number
auto_generate_sql_unique_write_number auto_generate_sql_write_number auto_rehash auto_repair auto_vertical_output
base64_output basedir batch binary_as_hex binary_mode binlog_row_event_max_size character_sets_dir check
check_if_upgrade_is_needed check_only_changed check_upgrade column_names column_type_info columns comments commit
compact compatible complete_insert compress concurrency connect_expired_password connect_timeout copy_s3_tables
count create create_options create_schema csv database databases datadir debug debug_check debug_info default_auth
default_character_set delayed_insert delete delete_master_logs delimiter detach disable_keys disable_log_bin
do_domain_ids do_server_ids dump_date dump_history dump_slave enable_cleartext_plugin engine events execute extended
extended_insert fast fields_enclosed_by fields_escaped_by fields_optionally_enclosed_by fields_terminated_by
fix_db_names fix_table_names flashback flush flush_logs flush_privileges force force_if_open force_read galera_info
gtid gtid_strict_mode header help hex_blob hexdump host html i_am_a_dummy ignore ignore_database ignore_domain_ids
ignore_foreign_keys ignore_lines ignore_server_ids ignore_spaces ignore_table ignore_table_data
include_master_host_port init_command insert_ignore iterations keys line_numbers lines_terminated_by local
local_infile local_load lock_all_tables lock_tables log_error log_queries low_priority master_data
max_allowed_packet max_join_size max_statement_time medium_check named_commands net_buffer_length no_auto_rehash
no_autocommit no_beep no_create_db no_create_info no_data no_data_med no_drop no_set_names no_tablespaces
number_char_cols number_int_cols number_of_queries offset one_database only_print open_files_limit opt optimize
order_by_primary order_by_size pager password persistent plugin_dir port post_query post_system pre_query pre_system
print_query_on_error print_row_count print_row_event_positions print_table_metadata process_tables process_views
progress_reports prompt protocol query quick quick_max_column_width quote_names raw read_from_remote_server
reconnect relative repair replace result_file rewrite_db routines safe_updates sandbox secure_auth select_limit
server_arg server_id set_charset short_form show_table_type show_warnings shutdown_timeout sigint_ignore silent
single_transaction skip_annotate_row_events skip_column_names skip_database skip_line_numbers skip_opt sleep socket
ssl ssl_ca ssl_capath ssl_cert ssl_cipher ssl_crl ssl_crlpath ssl_key ssl_verify_server_cert start_datetime
start_position status stop_datetime stop_never stop_never_slave_server_id stop_position system tab table tables tee
tls_version tmpdir to_last_log triggers tz_utc unbuffered upgrade_system_tables use_frm use_threads user verbose
verify_binlog_checksum version version_check vertical wait wait_for_all_slaves where write_binlog xml
`;

export const CLIENT_OPTION_LIST: readonly string[] = CLIENT_OPTIONS.trim().split(/\s+/);

const CLIENT_OPTION_SET: ReadonlySet<string> = new Set(CLIENT_OPTION_LIST);

/** True when a client program knows the option (normalised key). */
export function isClientOption(key: string): boolean {
  return CLIENT_OPTION_SET.has(key);
}

/** The client programs whose options the list holds (the oracle test asks each of them). */
export const CLIENT_PROGRAMS = [
  'mariadb',
  'mariadb-dump',
  'mariadb-admin',
  'mariadb-check',
  'mariadb-import',
  'mariadb-show',
  'mariadb-slap',
  'mariadb-upgrade',
  'mariadb-binlog',
] as const;
