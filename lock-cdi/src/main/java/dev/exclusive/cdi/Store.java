package dev.exclusive.cdi;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Objects;

/**
 * Selects the {@code LockRegistry} over one configured store: {@code @Inject @Store("files") LockRegistry files;}.
 * The unqualified {@code LockRegistry} works on the default store.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface Store {

    /** @return the store's configured name */
    String value();

    /** An instance of {@link Store}, for {@code Instance.select} and synthetic beans. */
    final class Literal extends AnnotationLiteral<Store> implements Store {

        private static final long serialVersionUID = 1L;

        /** The store's configured name. */
        private final String value;

        private Literal(String value) {
            this.value = Objects.requireNonNull(value, "value");
        }

        /**
         * @param storeName a store's configured name
         * @return the qualifier for it
         */
        public static Literal of(String storeName) {
            return new Literal(storeName);
        }

        @Override
        public String value() {
            return value;
        }
    }
}
