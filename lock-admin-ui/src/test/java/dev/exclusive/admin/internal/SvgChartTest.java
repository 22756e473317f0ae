package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The console's server-rendered chart, read back with an XML parser as a browser would. */
class SvgChartTest {

    private static final Instant FROM = Instant.parse("2026-12-01T04:00:00Z");
    private static final Instant TO = Instant.parse("2026-12-01T04:15:00Z");

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> elements(Document svg, String tag) {
        NodeList nodes = svg.getElementsByTagName(tag);
        List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            found.add((Element) nodes.item(i));
        }
        return found;
    }

    private static List<String> texts(Document svg, String cssClass) {
        return elements(svg, "text").stream()
                .filter(e -> e.getAttribute("class").equals(cssClass))
                .map(Element::getTextContent)
                .toList();
    }

    /** The polyline's points as [x, y] pairs. */
    private static List<double[]> line(Document svg) {
        List<Element> lines = elements(svg, "polyline");
        assertThat(lines).hasSize(1);
        return Arrays.stream(lines.get(0).getAttribute("points").split(" "))
                .map(pair -> Arrays.stream(pair.split(","))
                        .mapToDouble(Double::parseDouble)
                        .toArray())
                .toList();
    }

    private static SvgChart chart(List<SvgChart.Point> points) {
        return new SvgChart("Acquisitions", "/s", "var(--lumo-primary-color)", FROM, TO, points);
    }

    private static SvgChart.Point at(int secondsAfterStart, double value) {
        return new SvgChart.Point(FROM.plusSeconds(secondsAfterStart), value);
    }

    @Test
    void isOneSvgElementInTheSvgNamespaceWithAViewBoxThatScalesToItsContainer() throws Exception {
        Document svg = parse(chart(List.of(at(0, 1), at(60, 2))).render(ZoneOffset.UTC));

        Element root = svg.getDocumentElement();
        assertThat(root.getLocalName()).isEqualTo("svg");
        assertThat(root.getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
        assertThat(root.getAttribute("viewBox")).isEqualTo("0 0 " + SvgChart.WIDTH + " " + SvgChart.HEIGHT);
        assertThat(root.getAttribute("style")).contains("width:100%");
        assertThat(root.getAttribute("role")).isEqualTo("img");
    }

    @Test
    void everyTextIsEscapedSoThatItShowsAsTypedAndAddsNoMarkup() throws Exception {
        String title = "Waits <script>alert('x')</script> & \"more\"";
        String svg = new SvgChart(title, "a<b", "red\"/><script>", FROM, TO, List.of(at(0, 1), at(10, 2)))
                .render(ZoneOffset.UTC);

        assertThat(svg).doesNotContain("<script>").doesNotContain("a<b").doesNotContain("red\"/>");
        Document parsed = parse(svg);
        assertThat(elements(parsed, "script")).isEmpty();
        assertThat(texts(parsed, "exclusive-chart-title"))
                .singleElement()
                .asString()
                .startsWith(title + " a<b");
        assertThat(elements(parsed, "title").get(0).getTextContent()).isEqualTo(title + " (a<b)");
        assertThat(parsed.getDocumentElement().getAttribute("aria-label")).startsWith(title);
        assertThat(elements(parsed, "polyline").get(0).getAttribute("style")).contains("stroke:red\"/><script>;");
    }

    @Test
    void theYAxisRunsFromZeroToARoundNumberAtOrAboveThePeakAndTheLineIsScaledToIt() throws Exception {
        Document svg = parse(chart(List.of(at(0, 0), at(450, 7), at(900, 3.5))).render(ZoneOffset.UTC));

        assertThat(texts(svg, "exclusive-chart-y")).containsExactly("0", "2", "4", "6", "8");
        assertThat(texts(svg, "exclusive-chart-peak")).containsExactly("peak 7 /s");
        List<double[]> points = line(svg);
        assertThat(points).hasSize(3);
        // x: the window's start at the left edge, its middle in the middle, its end at the right edge
        assertThat(points.get(0)[0]).isEqualTo(SvgChart.LEFT);
        assertThat(points.get(1)[0]).isCloseTo((SvgChart.LEFT + SvgChart.RIGHT) / 2, within());
        assertThat(points.get(2)[0]).isEqualTo(SvgChart.RIGHT);
        // y: 0 on the axis, 7 at 7/8 of the height (the axis ends at 8), 3.5 at 3.5/8
        double height = SvgChart.BOTTOM - SvgChart.TOP;
        assertThat(points.get(0)[1]).isEqualTo(SvgChart.BOTTOM);
        assertThat(points.get(1)[1]).isCloseTo(SvgChart.BOTTOM - height * 7 / 8, within());
        assertThat(points.get(2)[1]).isCloseTo(SvgChart.BOTTOM - height * 3.5 / 8, within());
        assertThat(elements(svg, "polygon"))
                .as("the area under the line")
                .singleElement()
                .extracting(e -> e.getAttribute("points"))
                .asString()
                .startsWith(SvgChart.coordinate(SvgChart.LEFT) + "," + SvgChart.coordinate(SvgChart.BOTTOM));
    }

    @Test
    void roundAxisTopsForSmallAndLargePeaks() {
        assertThat(SvgChart.Scale.above(0.3)).isEqualTo(new SvgChart.Scale(0.1, 3));
        assertThat(SvgChart.Scale.above(1)).isEqualTo(new SvgChart.Scale(0.2, 5));
        assertThat(SvgChart.Scale.above(12)).isEqualTo(new SvgChart.Scale(2.5, 5));
        assertThat(SvgChart.Scale.above(100)).isEqualTo(new SvgChart.Scale(20, 5));
        assertThat(SvgChart.Scale.above(4_100)).isEqualTo(new SvgChart.Scale(1_000, 5));
        assertThat(SvgChart.number(0.25)).isEqualTo("0.25");
        assertThat(SvgChart.number(2.5)).isEqualTo("2.5");
        assertThat(SvgChart.number(40)).isEqualTo("40");
        assertThat(SvgChart.number(1_500)).isEqualTo("1.5k");
        assertThat(SvgChart.number(2_000_000)).isEqualTo("2M");
    }

    @Test
    void noDataShowsEmptyAxesAndSaysSo() throws Exception {
        Document svg = parse(chart(List.of()).render(ZoneOffset.UTC));

        assertThat(elements(svg, "polyline")).isEmpty();
        assertThat(elements(svg, "circle")).isEmpty();
        assertThat(texts(svg, "exclusive-chart-empty")).containsExactly("No data yet");
        assertThat(texts(svg, "exclusive-chart-y")).containsExactly("0", "0.2", "0.4", "0.6", "0.8", "1");
        assertThat(texts(svg, "exclusive-chart-peak")).containsExactly("");
    }

    @Test
    void anAllZeroSeriesIsAFlatLineOnTheAxisWithAnAxisOfZeroToOne() throws Exception {
        List<SvgChart.Point> zeros = new ArrayList<>();
        for (int second = 0; second <= 900; second += 5) {
            zeros.add(at(second, 0));
        }
        Document svg = parse(chart(zeros).render(ZoneOffset.UTC));

        List<double[]> points = line(svg);
        assertThat(points).hasSize(181).allSatisfy(p -> assertThat(p[1]).isEqualTo(SvgChart.BOTTOM));
        assertThat(points).allSatisfy(p -> assertThat(p[0]).isBetween(SvgChart.LEFT, SvgChart.RIGHT));
        assertThat(texts(svg, "exclusive-chart-y")).last().isEqualTo("1");
        assertThat(texts(svg, "exclusive-chart-peak")).containsExactly("peak 0 /s");
    }

    @Test
    void oneAlonePointIsADot() throws Exception {
        Document svg = parse(chart(List.of(at(300, 4))).render(ZoneOffset.UTC));

        assertThat(elements(svg, "polyline")).isEmpty();
        Element dot = elements(svg, "circle").get(0);
        assertThat(Double.parseDouble(dot.getAttribute("cx")))
                .isCloseTo(SvgChart.LEFT + (SvgChart.RIGHT - SvgChart.LEFT) / 3, within());
        assertThat(Double.parseDouble(dot.getAttribute("cy"))).isEqualTo(SvgChart.TOP);
    }

    @Test
    void pointsOutsideTheWindowAreLeftOutAndTheRestAreDrawnInTimeOrder() throws Exception {
        Document svg = parse(
                chart(List.of(at(600, 1), at(-5, 50), at(0, 2), at(901, 60))).render(ZoneOffset.UTC));

        List<double[]> points = line(svg);
        assertThat(points).hasSize(2);
        assertThat(points.get(0)[0]).isLessThan(points.get(1)[0]);
        assertThat(texts(svg, "exclusive-chart-peak")).containsExactly("peak 2 /s");
    }

    @Test
    void theXAxisShowsRoundClockTimesInTheViewersZone() throws Exception {
        Instant from = Instant.parse("2026-12-01T04:02:30Z");
        Instant to = from.plusSeconds(900);
        SvgChart chart = new SvgChart("Busy", "/s", "red", from, to, List.of());

        assertThat(texts(parse(chart.render(ZoneOffset.UTC)), "exclusive-chart-x"))
                .containsExactly("04:05", "04:10", "04:15");
        assertThat(texts(parse(chart.render(ZoneId.of("Asia/Kolkata"))), "exclusive-chart-x"))
                .as("UTC+05:30")
                .containsExactly("09:35", "09:40", "09:45");
        assertThat(chart.xTicks(ZoneOffset.UTC))
                .allSatisfy(tick -> assertThat(chart.x(tick)).isBetween(SvgChart.LEFT, SvgChart.RIGHT));
    }

    @Test
    void numbersUseADotInEveryLocale() throws Exception {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            String svg = chart(List.of(at(0, 0.5), at(7, 1.25))).render(ZoneOffset.UTC);

            Document parsed = parse(svg);
            assertThat(texts(parsed, "exclusive-chart-y")).contains("0.25", "1.25");
            assertThat(line(parsed)).hasSize(2);
            assertThat(svg).doesNotContainPattern("\\d,\\d+\"");
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void refusesValuesThatCannotBeDrawnAndAnEmptyWindow() {
        assertThatThrownBy(() -> at(0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> at(0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SvgChart("a", "b", "c", TO, FROM, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must end after it starts");
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(0.06);
    }
}
