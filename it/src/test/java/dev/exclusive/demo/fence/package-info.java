/**
 * Fenced writes on Liberty: the demo's purchase claims its product's fence in the shop's database, so a purchase
 * whose lease has ended is refused there once a newer purchase has claimed the product.
 */
package dev.exclusive.demo.fence;
