-- Schema v1 (applied in production on 2023-03-01).
CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text, country text, currency text);
CREATE TABLE invoices (id integer PRIMARY KEY, customer_id integer NOT NULL, number text NOT NULL,
  issued_on date NOT NULL, currency text, total text NOT NULL, status text NOT NULL DEFAULT 'open');
CREATE TABLE invoice_lines (id integer PRIMARY KEY, invoice_id integer NOT NULL, description text NOT NULL,
  quantity numeric(10,3) NOT NULL, unit_price text NOT NULL, tax_rate text);
CREATE TABLE payments (id integer PRIMARY KEY, customer_id integer NOT NULL, invoice_id integer,
  amount text NOT NULL, currency text, received_on date NOT NULL, reference text);
