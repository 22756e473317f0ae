package dev.exclusive.demo.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A product with a stock that purchases take from. */
@Entity
@Table(name = "products")
public class Product {

    @Id
    private long id;

    @Column(nullable = false, length = 100)
    private String name;

    @Column(nullable = false)
    private int stock;

    protected Product() {}

    public Product(long id, String name, int stock) {
        this.id = id;
        this.name = name;
        this.stock = stock;
    }

    public long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public int getStock() {
        return stock;
    }

    public void setStock(int stock) {
        this.stock = stock;
    }
}
