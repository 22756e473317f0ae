/**
 * Leases that end while the work runs, on Liberty with the demo's database: {@code onLost = ROLLBACK} keeps the
 * work's rows from committing, {@code LOG} lets them stand.
 */
package dev.exclusive.demo.lost;
