package dev.exclusive.demo.shop;

import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Field;
import org.hibernate.cfg.Configuration;

/** The shop's entities on an in-memory H2 database, and its beans wired by hand, for tests without a server. */
public final class ShopDatabase {

    private ShopDatabase() {}

    /** @return a new in-memory database named {@code name} with the shop's tables, dropped when it is closed */
    public static EntityManagerFactory inMemory(String name) {
        return new Configuration()
                .addAnnotatedClass(Product.class)
                .addAnnotatedClass(Order.class)
                .setProperty(
                        "hibernate.connection.url", "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000")
                .setProperty("hibernate.connection.username", "sa")
                .setProperty("hibernate.hbm2ddl.auto", "create-drop")
                .buildSessionFactory();
    }

    /** @return {@code target} with its field {@code field} set to {@code value}, as the container would inject it */
    public static <T> T inject(T target, String field, Object value) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(target, value);
        return target;
    }
}
