/**
 * The store SPI, for those who write a store: implement {@link dev.exclusive.spi.LockStore}, register a
 * {@link dev.exclusive.spi.LockStoreProvider} with {@link java.util.ServiceLoader}, and run the contract
 * suite ({@code LockStoreContract} in lock-api's test-jar) against it. {@link dev.exclusive.spi.StoreSettings} reads
 * a provider's settings, {@link dev.exclusive.spi.Secrets} keeps their credentials out of messages and logs.
 */
package dev.exclusive.spi;
