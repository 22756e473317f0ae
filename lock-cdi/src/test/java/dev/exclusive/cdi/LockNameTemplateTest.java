package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.InvalidLockNameException;
import dev.exclusive.LockInfo;
import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lock names rendered from templates: one name per distinct list of values. Between two placeholders, values are
 * percent-escaped for {@code %} and the separator's first character; a template with one placeholder renders its
 * value unchanged; a {@code null} value is refused.
 */
class LockNameTemplateTest {

    record Customer(String name) {}

    record Order(Long id, Customer customer) {}

    @ApplicationScoped
    static class Transfers {
        @Inject
        LockRegistry registry;

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        private String held() {
            runs.incrementAndGet();
            List<LockInfo> live = registry.liveLocks("", 10);
            assertThat(live).hasSize(1);
            return live.get(0).name();
        }

        @Exclusive("{from}:{to}")
        public String pair(String from, String to) {
            return held();
        }

        @Exclusive("account:{0}")
        public String single(String account) {
            return held();
        }

        @Exclusive("order:{order.id}")
        public String order(Order order) {
            return held();
        }

        @Exclusive("order:{order.id}/{order.customer.name}")
        public String byCustomer(Order order) {
            return held();
        }

        @Exclusive("sum:{0}+{1}")
        public String numbers(int a, long b) {
            return held();
        }

        @Exclusive("any:{0}")
        public String any(Object value) {
            return held();
        }
    }

    Deployment deployment;
    Transfers transfers;

    @BeforeEach
    void start() {
        deployment = Deployment.start(Map.of(), Transfers.class);
        transfers = deployment.select(Transfers.class);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void valuesThatContainTheSeparatorGiveDifferentNames() {
        String one = transfers.pair("x:y", "z");
        String other = transfers.pair("x", "y:z");

        assertThat(one).isEqualTo("x%3Ay:z");
        assertThat(other).isEqualTo("x:y%3Az");
    }

    @Test
    void aPercentSignInAValueIsEscapedSoThatAnEscapeCannotBePassedIn() {
        assertThat(transfers.pair("x%3Ay", "z")).isEqualTo("x%253Ay:z");
        assertThat(transfers.pair("x:y", "z")).isEqualTo("x%3Ay:z");
    }

    @Test
    void idsAndPlainWordsRenderUnchanged() {
        assertThat(transfers.pair("42", "eu-west_1.b")).isEqualTo("42:eu-west_1.b");
        assertThat(transfers.numbers(7, -3)).isEqualTo("sum:7+-3");
        assertThat(transfers.order(new Order(9L, null))).isEqualTo("order:9");
    }

    @Test
    void aTemplateWithOnePlaceholderRendersItsValueAsItIs() {
        assertThat(transfers.single("a:b%c/d")).isEqualTo("account:a:b%c/d");
    }

    @Test
    void nestedPropertiesAreEscapedLikeParameters() {
        assertThat(transfers.byCustomer(new Order(7L, new Customer("north/east"))))
                .isEqualTo("order:7/north%2Feast");
        assertThat(transfers.byCustomer(new Order(7L, new Customer("Zoë"))))
                .as("non-ASCII text that is no separator stays readable")
                .isEqualTo("order:7/Zoë");
    }

    /**
     * A parameter declared as {@code Object} (or an interface) cannot be checked at deployment: each call checks its
     * value, and an array or a value whose text is its identity is refused, since equal values would name different
     * locks; values with text of their own work as before.
     */
    @Test
    void aValueWhoseTextIsItsIdentityIsRefusedWhereItsTypeWasUnknownAtDeployment() {
        assertThat(transfers.any(List.of(1L, 2L))).isEqualTo("any:[1, 2]");
        assertThat(transfers.any(7L)).isEqualTo("any:7");
        assertThatThrownBy(() -> transfers.any(new long[] {1, 2}))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("placeholder {0} is an array (long[])");
        assertThatThrownBy(() -> transfers.any(new Object()))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("placeholder {0} is a java.lang.Object, which has no toString() of its own");
        assertThat(transfers.runs())
                .as("the method never ran for the refused values")
                .isEqualTo(2);
    }

    @Test
    void aNullParameterIsRefusedNamingThePlaceholderAndTheMethodAndTheMethodDoesNotRun() {
        assertThatThrownBy(() -> transfers.pair(null, "z"))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("@Exclusive on " + Transfers.class.getName() + "#pair(String, String)")
                .hasMessageContaining("lock name template \"{from}:{to}\"")
                .hasMessageContaining("{from}: from is null");
        assertThat(transfers.runs()).isZero();
    }

    @Test
    void aNullOnTheWayToANestedPropertyIsRefusedNamingWhichPartIsNull() {
        assertThatThrownBy(() -> transfers.order(null))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("#order(Order)")
                .hasMessageContaining("{order.id}: order is null");
        assertThatThrownBy(() -> transfers.order(new Order(null, null)))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("{order.id}: order.id is null");
        assertThatThrownBy(() -> transfers.byCustomer(new Order(1L, null)))
                .isInstanceOf(InvalidLockNameException.class)
                .hasMessageContaining("{order.customer.name}: order.customer is null");
        assertThat(transfers.runs()).isZero();
    }
}
