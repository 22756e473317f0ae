/**
 * The shop: products with a stock, orders, and the purchase that must never sell more than the stock, guarded by
 * a lock and by a conditional stock update.
 */
package dev.exclusive.demo.shop;
